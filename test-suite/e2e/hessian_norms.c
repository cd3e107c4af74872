// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Second derivatives through roots and norms, whose reverse rules test the result for zero
// (sqrt, cbrt, pow with an exponent in (0, 1), hypot): forward over reverse
// (Hessian-vector products) and reverse over reverse. The rule once read the result from
// the tape twice, once as bits; LLVM turned the pair into an integer load and a float made
// from its bits, which the outer derivative refused. Checked against central differences of
// the gradient, and reverse over reverse against forward over reverse.
#include "zyg_check.h"

#define N 4

static double f(const double *x, int n) {
    double ss = 0;
    for (int i = 0; i < n; i++) ss += x[i] * x[i];
    double norm = sqrt(ss);
    return norm * x[0] + cbrt(x[1] * x[2] + 2.0) + pow(x[3] * x[3] + 0.5, 0.75) + hypot(x[0], x[3]) * x[1];
}

static void grad(const double *x, double *g, int n) { __enzyme_autodiff((void *)f, enzyme_dup, x, g, enzyme_const, n); }

/* a scalar pair for reverse over reverse (loop-free inner) */
static double h(double a, double b) { return sqrt(a * a + b * b + 1.0) * a + cbrt(a * b + 3.0) + pow(b * b + 1.0, 0.25); }
static double ha(double a, double b) { return __enzyme_autodiff((void *)h, a, enzyme_const, b); }

int main(void) {
    double pts[3][N] = {{0.3, -0.4, 0.9, 0.2}, {1.2, 0.5, -0.7, -1.1}, {-0.6, 0.8, 0.1, 0.4}};
    double dirs[2][N] = {{1, 0, 0, 0}, {0.3, -0.5, 0.2, 0.9}};
    for (int p = 0; p < 3; p++) {
        for (int d = 0; d < 2; d++) {
            double x[N], g[N] = {0}, hv[N] = {0}, xp[N], xm[N], gp[N] = {0}, gm[N] = {0};
            for (int i = 0; i < N; i++) x[i] = pts[p][i], xp[i] = x[i] + 1e-6 * dirs[d][i], xm[i] = x[i] - 1e-6 * dirs[d][i];
            __enzyme_fwddiff((void *)grad, enzyme_dup, x, dirs[d], enzyme_dup, g, hv, enzyme_const, N);
            grad(xp, gp, N);
            grad(xm, gm, N);
            for (int i = 0; i < N; i++) check_close("H v vs FD of the gradient", hv[i], (gp[i] - gm[i]) / 2e-6, 1e-5, 1e-6);
        }
        double a = pts[p][0], b = pts[p][1];
        double haa_rev = __enzyme_autodiff((void *)ha, a, enzyme_const, b);
        double hab_rev = __enzyme_autodiff((void *)ha, enzyme_const, a, b);
        double haa_fwd = __enzyme_fwddiff((void *)ha, a, 1.0, b, 0.0);
        double hab_fwd = __enzyme_fwddiff((void *)ha, a, 0.0, b, 1.0);
        check_close("d2h/da2 rev over rev = fwd over rev", haa_rev, haa_fwd, EXACT_RTOL, EXACT_ATOL);
        check_close("d2h/dadb rev over rev = fwd over rev", hab_rev, hab_fwd, EXACT_RTOL, EXACT_ATOL);
        check_close("d2h/da2 vs FD", haa_fwd, FD2_0(ha, a, b), 1e-5, 1e-6);
        check_close("d2h/dadb vs FD", hab_fwd, FD2_1(ha, a, b), 1e-5, 1e-6);
    }
    return zyg_report();
}
