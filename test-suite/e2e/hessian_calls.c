// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// RUN: %grad-run -O3 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Hessian-vector products, forward over reverse, through calls kept as calls (noinline,
// loop-free): a helper of one scalar, a helper reading two values through a pointer into the
// differentiated array, and one writing two results through an output pointer that feed
// another call, and a helper of two active scalars (-O3's argument promotion turns `pair`
// into one too; both once gave a wrong H v, when a callee's tangent slot was sized for a
// pointer). Checked against central differences of the gradient along v at three points
// and three directions. A recursive helper too (its boxed tape, copied as a struct value
// holding a pointer at -O1 and above, was refused by forward mode).
#include "zyg_check.h"

#define N 6

__attribute__((noinline)) static double soft(double a) { return log(1 + exp(a)) + 0.1 * a * a * a; }

__attribute__((noinline)) static double pair(const double *p) { return sin(p[0] * p[1]) + p[0] * exp(p[1]); }

__attribute__((noinline)) static double two(double a, double b) { return sin(a * b) + a * exp(b); }

__attribute__((noinline)) static double rec(double a, int n) { return n == 0 ? a : a * rec(a * 0.9 + 0.1, n - 1); }

__attribute__((noinline)) static void polar(const double *p, double *out) {
    out[0] = exp(p[0] - p[1]);
    out[1] = atan2(p[1], p[0] + 2);
}

static double f(const double *x, int n) {
    double out[2];
    polar(x, out);
    return soft(x[2] * x[3]) + soft(x[n - 2]) + pair(x + 4) + out[0] * out[1] + pair(out) + two(x[1], x[5] * x[0]) + rec(x[3], 3) * x[2];
}

static void grad(const double *x, double *dx, int n) { __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, n); }

int main(void) {
    double pts[3][N] = {{0.3, -0.2, 0.5, 0.1, -0.4, 0.7}, {1.0, 0.8, -0.6, 1.2, 0.4, -0.9}, {-1.5, 0.25, 0.9, -0.7, 1.1, 0.6}};
    double dirs[3][N] = {{1, 0, 0, 0, 0, 0}, {0, 0, 0, 0, 0, 1}, {0.4, -0.9, 0.3, 0.7, -0.2, 0.5}};
    for (int p = 0; p < 3; p++)
        for (int d = 0; d < 3; d++) {
            const double *x = pts[p], *v = dirs[d];
            double dx[N] = {0}, hv[N] = {0};
            __enzyme_fwddiff((void *)grad, enzyme_dup, x, v, enzyme_dup, dx, hv, enzyme_const, N);
            double h = 1e-6, xp[N], xm[N], gp[N] = {0}, gm[N] = {0};
            for (int i = 0; i < N; i++) {
                xp[i] = x[i] + h * v[i];
                xm[i] = x[i] - h * v[i];
            }
            grad(xp, gp, N);
            grad(xm, gm, N);
            for (int i = 0; i < N; i++) check_close("Hv vs FD of the gradient", hv[i], (gp[i] - gm[i]) / (2 * h), FD_RTOL, FD_ATOL);
        }
    return zyg_report();
}
