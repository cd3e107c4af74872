// zyg_loss_check.hpp: one check shared by C++ tests of a loss of N parameters (the Eigen
// programs). Reverse mode against central differences at three points; forward mode
// (__enzyme_fwddiff) along two directions against the reverse gradient. Include after
// zyg_check.h.
#ifndef ZYG_LOSS_CHECK_HPP
#define ZYG_LOSS_CHECK_HPP

template <double (*Loss)(const double *), int N> int check_loss() {
    zyg_array_fn at = [](const double *p, void *) { return Loss(p); };
    for (int t = 0; t < 3; t++) {
        double p[N], dp[N] = {0};
        for (int k = 0; k < N; k++)
            p[k] = 0.4 + 0.23 * k - 0.07 * k * (k % 3) + 0.31 * t;
        __enzyme_autodiff((void *)Loss, enzyme_dup, p, dp);
        check_array_fd("gradient vs FD", at, 0, p, N, dp);
        for (int d = 0; d < 2; d++) {
            double dir[N], want = 0;
            for (int k = 0; k < N; k++) {
                dir[k] = (k + d) % 3 == 0 ? 1.0 : -0.5;
                want += dir[k] * dp[k];
            }
            double tangent = __enzyme_fwddiff((void *)Loss, enzyme_dup, p, dir);
            check_close("tangent vs gradient", tangent, want, 1e-10, 1e-12);
        }
    }
    return zyg_report();
}

#endif
