/* For the BLAS and LAPACK tests: a function of one packed parameter vector p[NP] (arrays
 * and scalars alike), checked at a point in reverse mode (each element of the gradient
 * against central differences) and forward mode (the tangent along a direction against
 * central differences along it, and against the gradient's inner product with it).
 * Define NP and `static double f(const double *p)` before including it; BLAS_STEP,
 * BLAS_RTOL and BLAS_ATOL (the finite differences' step and tolerances) may be defined
 * too, larger for functions computed in float. */
#ifndef ZYG_BLAS_CHECK_H
#define ZYG_BLAS_CHECK_H
#include "zyg_check.h"

#ifndef BLAS_STEP
#define BLAS_STEP 1e-6
#define BLAS_RTOL FD_RTOL
#define BLAS_ATOL FD_ATOL
#endif

static double f(const double *p);

__attribute__((unused)) static void check_point(const char *label, const double *p) {
    double dp[NP] = {0}, v[NP], up[NP], down[NP];
    __enzyme_autodiff((void *)f, enzyme_dup, p, dp);
    double along = 0, h = BLAS_STEP;
    for (int k = 0; k < NP; k++) {
        for (int j = 0; j < NP; j++)
            up[j] = down[j] = p[j];
        up[k] += h;
        down[k] -= h;
        check_close(label, dp[k], (f(up) - f(down)) / (2 * h), BLAS_RTOL, BLAS_ATOL);
    }
    for (int k = 0; k < NP; k++) {
        v[k] = sin(1.3 * k + 0.7);
        along += dp[k] * v[k];
        up[k] = p[k] + h * v[k];
        down[k] = p[k] - h * v[k];
    }
    double t = __enzyme_fwddiff((void *)f, enzyme_dup, p, v);
    char name[96];
    snprintf(name, sizeof name, "%s forward", label);
    check_close(name, t, (f(up) - f(down)) / (2 * h), BLAS_RTOL, BLAS_ATOL);
    snprintf(name, sizeof name, "%s forward=reverse", label);
    check_close(name, t, along, 1e-5, 1e-6);
}

/* The points most tests check at: p1 and p2 smooth patterns, p3 a ramp down by `slope`. */
__attribute__((unused)) static void fill_points(double *p1, double *p2, double *p3, double slope) {
    for (int k = 0; k < NP; k++) {
        p1[k] = sin(0.7 * k + 0.2);
        p2[k] = cos(1.9 * k) * 0.8;
        p3[k] = 0.4 - slope * k;
    }
}

/* check_point at each of the three points. */
__attribute__((unused)) static void check_points(const double *p1, const double *p2, const double *p3) {
    check_point("p1", p1);
    check_point("p2", p2);
    check_point("p3", p3);
}

#endif
