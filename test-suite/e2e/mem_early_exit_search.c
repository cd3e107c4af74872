// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Searches over arrays that leave their loops early on the data: the first element above
// a threshold (break), a bracketing interval for piecewise-linear interpolation in a
// table of knots (returning from inside the loop), and a pointer to the found element.
#include "zyg_check.h"

enum { N = 7 };

/* linear interpolation of (xs, ys) at t; xs increasing */
static double interp(const double *xs, const double *ys, int n, double t) {
    for (int i = 0; i + 1 < n; i++)
        if (t < xs[i + 1]) {
            double w = (t - xs[i]) / (xs[i + 1] - xs[i]);
            return ys[i] * (1.0 - w) + ys[i + 1] * w;
        }
    return ys[n - 1];
}

double search(const double *xs, const double *ys, double t, double thr) {
    const double *hit = ys + N - 1;
    int i;
    for (i = 0; i < N; i++)
        if (ys[i] * ys[i] > thr) {
            hit = &ys[i];
            break;
        }
    double v = interp(xs, ys, N, t) + interp(xs, ys, N, t + 0.7);
    return v * *hit + i * 0.01 * ys[0];
}

/* z = (xs[N], ys[N], t) */
static double flat(const double *z) {
    double xs[N], ys[N];
    for (int i = 0; i < N; i++) xs[i] = z[i], ys[i] = z[N + i];
    return search(xs, ys, z[2 * N], 0.5);
}

static double fd(double (*g)(const double *), const double *x, int n, int k) {
    double a[64], b[64], h = ZYG_STEP(x[k]);
    for (int i = 0; i < n; i++) a[i] = b[i] = x[i];
    a[k] += h;
    b[k] -= h;
    return (g(a) - g(b)) / (2 * h);
}

int main(void) {
    double pts[2][2 * N + 1] = {{0.0, 0.5, 1.1, 1.6, 2.4, 3.0, 3.9, 0.2, -0.4, 0.3, 0.9, -1.1, 0.6, 0.1, 1.3},
                                {0.0, 0.7, 1.2, 2.0, 2.6, 3.1, 3.5, -0.1, 0.5, 0.75, -0.2, 0.4, 1.4, 0.9, 2.75}};
    for (int q = 0; q < 2; q++) {
        double *z = pts[q], xs[N], ys[N], dxs[N] = {0}, dys[N] = {0};
        for (int i = 0; i < N; i++) xs[i] = z[i], ys[i] = z[N + i];
        double dt = __enzyme_autodiff((void *)search, enzyme_dup, xs, dxs, enzyme_dup, ys, dys, z[2 * N],
                                      enzyme_const, 0.5);
        for (int k = 0; k < N; k++) {
            check_close("dxs", dxs[k], fd(flat, z, 2 * N + 1, k), FD_RTOL, FD_ATOL);
            check_close("dys", dys[k], fd(flat, z, 2 * N + 1, N + k), FD_RTOL, FD_ATOL);
        }
        check_close("dt", dt, fd(flat, z, 2 * N + 1, 2 * N), FD_RTOL, FD_ATOL);
    }
    return zyg_report();
}
