// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
/* Regression: a second derivative through a reverse-mode gradient at a zero factor of a
 * product. f(x, y) = exp(y) x; d2f/dx dy = exp(y) for every x. The gradient's adjoint of y
 * once carried a "strong zero" guard on the adjoint alone,
 *     d = adj * x;  dy = (d == 0) ? 0 : d * exp(y)
 * and the outer derivative took the select's constant arm where d == 0 (x = 0): forward
 * over reverse and reverse over reverse gave 0, and Hessian-vector products were wrong at
 * every point with a zero coordinate. The guard now fires only where d * factor is NaN.
 * Each math rule with such a guard (exp, sinh, log1p, asin, pow's two, powi) is checked
 * at a zero factor. */
#include "zyg_check.h"

static double f(double x, double y) { return exp(y) * x; }
static double fy(double x, double y) { return __enzyme_autodiff((void *)f, enzyme_const, x, y); }   /* df/dy, reverse */
static double fyf(double x, double y) { return __enzyme_fwddiff((void *)f, x, 0.0, y, 1.0); }       /* df/dy, forward */

static double g(const double *x) { return exp(x[1]) * x[0]; }
static void grad(const double *x, double *dx) { __enzyme_autodiff((void *)g, enzyme_dup, x, dx); }

#define GUARDED(name, h)                                                                   \
    static double name(double x, double y) { return (h) * y; }                             \
    static double name##_x(double x, double y) { return __enzyme_autodiff((void *)name, x, enzyme_const, y); }
GUARDED(h_exp, exp(x))
GUARDED(h_sinh, sinh(x))
GUARDED(h_log1p, log1p(x))
GUARDED(h_asin, asin(x))
GUARDED(h_pow, pow(x, 2.5))
GUARDED(h_powi, __builtin_powi(x, 3))
static double e_pow(double x, double y) { return pow(2.0, x) * y; }
static double e_pow_x(double x, double y) { return __enzyme_autodiff((void *)e_pow, x, enzyme_const, y); }
#define gx_exp h_exp_x
#define gx_sinh h_sinh_x
#define gx_log1p h_log1p_x
#define gx_asin h_asin_x
#define gx_pow h_pow_x
#define gx_powi h_powi_x
#define ge_pow e_pow_x

int main(void) {
    double x = 0.0, y = 0.5, want = exp(y); /* d2f/dx dy */
    check_close("fwd over rev", __enzyme_fwddiff((void *)fy, x, 1.0, y, 0.0), want, 1e-12, 0);
    check_close("rev over rev", __enzyme_autodiff((void *)fy, x, enzyme_const, y), want, 1e-12, 0);
    check_close("fwd over fwd", __enzyme_fwddiff((void *)fyf, x, 1.0, y, 0.0), want, 1e-12, 0);
    check_close("rev over fwd", __enzyme_autodiff((void *)fyf, x, enzyme_const, y), want, 1e-12, 0);
    check_close("fwd over rev at x = 1e-300", __enzyme_fwddiff((void *)fy, 1e-300, 1.0, y, 0.0), want, 1e-12, 0);
    double p[2] = {0.0, 0.5}, v[2] = {1, 0}, dp[2] = {0}, hv[2] = {0};
    __enzyme_fwddiff((void *)grad, enzyme_dup, p, v, enzyme_dup, dp, hv);
    check_close("HVP (1,0) at (0, 0.5): entry 1", hv[1], want, 1e-12, 0);
    /* d/dy (dg/dx) at y = 0 for g = h(x) y: h'(x), through each guarded rule. */
    for (int i = 0; i < 3; i++) {
        double xs[3] = {0.3, 0.7, 1.4}, t = xs[i];
        check_close("exp", __enzyme_fwddiff((void *)gx_exp, t, 0.0, 0.0, 1.0), exp(t), 1e-12, 0);
        check_close("sinh", __enzyme_fwddiff((void *)gx_sinh, t, 0.0, 0.0, 1.0), cosh(t), 1e-12, 0);
        check_close("log1p", __enzyme_fwddiff((void *)gx_log1p, t, 0.0, 0.0, 1.0), 1 / (1 + t), 1e-12, 0);
        check_close("asin", __enzyme_fwddiff((void *)gx_asin, t / 2, 0.0, 0.0, 1.0), 1 / sqrt(1 - t * t / 4), 1e-12, 0);
        check_close("pow base", __enzyme_fwddiff((void *)gx_pow, t, 0.0, 0.0, 1.0), 2.5 * pow(t, 1.5), 1e-12, 0);
        check_close("pow exponent", __enzyme_fwddiff((void *)ge_pow, t, 0.0, 0.0, 1.0), pow(2.0, t) * log(2.0), 1e-12, 0);
        check_close("powi", __enzyme_fwddiff((void *)gx_powi, t, 0.0, 0.0, 1.0), 3 * t * t, 1e-12, 0);
        /* and by reverse over reverse */
        check_close("exp rev", __enzyme_autodiff((void *)gx_exp, enzyme_const, t, 0.0), exp(t), 1e-12, 0);
        check_close("pow rev", __enzyme_autodiff((void *)gx_pow, enzyme_const, t, 0.0), 2.5 * pow(t, 1.5), 1e-12, 0);
    }
    return zyg_report();
}
