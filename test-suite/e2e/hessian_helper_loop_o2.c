// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// RUN: %grad-run -O3 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Hessian-vector products, forward over reverse, through a helper kept as a call that loops
// over an array, called twice on different parts of it: each call's tape (stack headers for
// the unrolled loop and its remainder, trip counts) is copied into the caller's tape, at
// -O2 as one struct value whose shadow carries the shadow stacks. Checked against central
// differences of the gradient along v, at trip counts that take the unrolled loop, its
// remainder, or both.
#include "zyg_check.h"

#define N 11

__attribute__((noinline)) static double weighted(const double *w, const double *x, int n) {
    double s = 0;
    for (int i = 0; i < n; i++) s += sin(w[i]) * x[i] + w[i] * w[i] * x[i] * x[i];
    return s;
}

static double f(const double *w, int n) {
    double a = weighted(w, w + n, n);
    double b = weighted(w + n, w, n);
    return a * b + exp(0.1 * a);
}

static void grad(const double *w, double *dw, int n) { __enzyme_autodiff((void *)f, enzyme_dup, w, dw, enzyme_const, n); }

int main(int argc, char **argv) {
    (void)argv;
    double w[2 * N], v[2 * N];
    for (int i = 0; i < 2 * N; i++) {
        w[i] = 0.4 * sin(1.3 * i + 0.2);
        v[i] = cos(0.7 * i) - 0.3;
    }
    int sizes[3] = {argc + 1, argc + 3, argc + 10}; /* 2, 4, 11: unknown to the compiler */
    for (int k = 0; k < 3; k++) {
        int n = sizes[k];
        double dw[2 * N] = {0}, hv[2 * N] = {0};
        __enzyme_fwddiff((void *)grad, enzyme_dup, w, v, enzyme_dup, dw, hv, enzyme_const, n);
        double h = 1e-6, wp[2 * N], wm[2 * N], gp[2 * N] = {0}, gm[2 * N] = {0}, g[2 * N] = {0};
        for (int i = 0; i < 2 * N; i++) {
            wp[i] = w[i] + h * v[i];
            wm[i] = w[i] - h * v[i];
        }
        grad(w, g, n);
        grad(wp, gp, n);
        grad(wm, gm, n);
        for (int i = 0; i < 2 * n; i++) {
            check_close("dw (the gradient beside H v)", dw[i], g[i], 1e-13, 1e-15);
            check_close("Hv vs FD of the gradient", hv[i], (gp[i] - gm[i]) / (2 * h), FD_RTOL, FD_ATOL);
        }
    }
    return zyg_report();
}
