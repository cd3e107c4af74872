// XFAIL: *
// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// KNOWN WRONG RESULT, kept as an expected failure until fixed (README, "Higher-order
// derivatives"): when this passes, lit reports it and the XFAIL line goes.
/* Wrong result (all -O levels): a second derivative through a reverse-mode gradient is 0
 * where a factor of a product is exactly zero. f(x, y) = exp(y) x; d2f/dx dy = exp(y) for
 * every x, but forward over reverse and reverse over reverse give 0 at x = 0 (right at
 * x = 1e-300). The gradient's adjoint of y is emitted with a "strong zero" guard,
 *     d = adj * x;  dy = (|d| == 0) ? 0 : d * exp(y)
 * and the outer derivative differentiates the select: where d == 0 it takes the constant
 * branch and loses d' exp(y). Forward over forward and reverse over forward are right.
 * The same makes Hessian-vector products wrong at any point with a zero coordinate, e.g.
 * f(x) = sum_i exp(x[i]) x[i-1] at x[1] = 0 gives H[2][1] = 0 instead of exp(x[2]). */
#include "zyg_check.h"

static double f(double x, double y) { return exp(y) * x; }
static double fy(double x, double y) { return __enzyme_autodiff((void *)f, enzyme_const, x, y); }   /* df/dy, reverse */
static double fyf(double x, double y) { return __enzyme_fwddiff((void *)f, x, 0.0, y, 1.0); }       /* df/dy, forward */

static double g(const double *x) { return exp(x[1]) * x[0]; }
static void grad(const double *x, double *dx) { __enzyme_autodiff((void *)g, enzyme_dup, x, dx); }

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
    return zyg_report();
}
