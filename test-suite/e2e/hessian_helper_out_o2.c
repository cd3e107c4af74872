// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// RUN: %grad-run -O3 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Hessian-vector products, forward over reverse, through a helper kept as a call that loops
// and returns its results through memory (an output array on the caller's stack), then a
// second helper with a loop that reads them: the helpers' tapes, copied into the caller's as
// struct values at -O2, carry their shadow stacks. Checked against central differences of
// the gradient along v.
#include "zyg_check.h"

#define N 9

__attribute__((noinline)) static void moments(const double *x, int n, double *out) {
    double s = 0, q = 0, c = 0;
    for (int i = 0; i < n; i++) {
        s += x[i];
        q += x[i] * x[i];
        c += x[i] * x[i] * x[i];
    }
    out[0] = s / n;
    out[1] = q / n;
    out[2] = c / n;
}

__attribute__((noinline)) static double spread(const double *x, const double *m, int n) {
    double d = 0;
    for (int i = 0; i < n; i++) d += (x[i] - m[0]) * (x[i] - m[0]) * exp(-m[1] * x[i]);
    return d;
}

static double f(const double *x, int n) {
    double m[3];
    moments(x, n, m);
    return spread(x, m, n) + m[0] * m[2] + sin(m[1]);
}

static void grad(const double *x, double *dx, int n) { __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, n); }

int main(int argc, char **argv) {
    (void)argv;
    double x[N], v[N];
    for (int i = 0; i < N; i++) {
        x[i] = 0.5 * cos(0.9 * i + 0.4) + 0.1 * i;
        v[i] = 0.6 - 0.2 * i + 0.05 * i * i;
    }
    int sizes[3] = {argc + 2, argc + 3, argc + 8}; /* 3, 4, 9: unknown to the compiler */
    for (int k = 0; k < 3; k++) {
        int n = sizes[k];
        double dx[N] = {0}, hv[N] = {0};
        __enzyme_fwddiff((void *)grad, enzyme_dup, x, v, enzyme_dup, dx, hv, enzyme_const, n);
        double h = 1e-6, xp[N], xm[N], gp[N] = {0}, gm[N] = {0}, g[N] = {0};
        for (int i = 0; i < N; i++) {
            xp[i] = x[i] + h * v[i];
            xm[i] = x[i] - h * v[i];
        }
        grad(x, g, n);
        grad(xp, gp, n);
        grad(xm, gm, n);
        for (int i = 0; i < n; i++) {
            check_close("dx (the gradient beside H v)", dx[i], g[i], 1e-13, 1e-15);
            check_close("Hv vs FD of the gradient", hv[i], (gp[i] - gm[i]) / (2 * h), FD_RTOL, FD_ATOL);
        }
    }
    return zyg_report();
}
