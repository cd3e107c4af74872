/* For the BLAS and LAPACK tests: a function of one packed parameter vector p[NP] (arrays
 * and scalars alike), checked at a point in reverse mode (each element of the gradient
 * against central differences) and forward mode (the tangent along a direction against
 * central differences along it, and against the gradient's inner product with it).
 * Define NP and `static double f(const double *p)` before including it. */
#ifndef ZYG_BLAS_CHECK_H
#define ZYG_BLAS_CHECK_H
#include "zyg_check.h"

static double f(const double *p);
static double f_ctx(const double *p, void *ctx) { (void)ctx; return f(p); }

__attribute__((unused)) static void check_point(const char *label, const double *p) {
    double dp[NP] = {0}, v[NP], up[NP], down[NP];
    __enzyme_autodiff((void *)f, enzyme_dup, p, dp);
    check_array_fd(label, f_ctx, 0, p, NP, dp);
    double along = 0, h = 1e-6;
    for (int k = 0; k < NP; k++) {
        v[k] = sin(1.3 * k + 0.7);
        along += dp[k] * v[k];
        up[k] = p[k] + h * v[k];
        down[k] = p[k] - h * v[k];
    }
    double t = __enzyme_fwddiff((void *)f, enzyme_dup, p, v);
    char name[96];
    snprintf(name, sizeof name, "%s forward", label);
    check_close(name, t, (f(up) - f(down)) / (2 * h), FD_RTOL, FD_ATOL);
    snprintf(name, sizeof name, "%s forward=reverse", label);
    check_close(name, t, along, 1e-10, 1e-12);
}
#endif
