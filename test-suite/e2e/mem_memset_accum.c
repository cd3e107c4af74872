// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// memset of an accumulator, once per outer iteration: a power-method-like loop where
// y = memset(0) then y += A x (column by column), and x is rebuilt from y; the memset must
// zero the shadow (old contents have no influence) and the accumulations be undone.
#include <string.h>
#include "zyg_check.h"

enum { N = 4 };

double iterate(const double *a, const double *x0, int iters) {
    double x[N], y[N];
    memcpy(x, x0, sizeof x);
    double s = 0.0;
    for (int t = 0; t < iters; t++) {
        memset(y, 0, sizeof y);
        for (int j = 0; j < N; j++)
            for (int i = 0; i < N; i++)
                y[i] += a[i * N + j] * x[j];
        double nrm = 0.0;
        for (int i = 0; i < N; i++)
            nrm += y[i] * y[i];
        nrm = sqrt(nrm);
        for (int i = 0; i < N; i++)
            x[i] = y[i] / nrm;
        s += nrm;
    }
    return s + x[0];
}

/* z = (a[N*N], x0[N]) */
static double iterate_flat(const double *z) { return iterate(z, z + N * N, 3); }

static double fd(double (*g)(const double *), const double *x, int n, int k) {
    double a[64], b[64], h = ZYG_STEP(x[k]);
    for (int i = 0; i < n; i++) a[i] = b[i] = x[i];
    a[k] += h;
    b[k] -= h;
    return (g(a) - g(b)) / (2 * h);
}

int main(void) {
    double pts[2][N * N + N] = {
        {2.0, 0.3, -0.1, 0.4, 0.3, 1.5, 0.2, -0.2, -0.1, 0.2, 1.0, 0.5, 0.4, -0.2, 0.5, 0.8, 1.0, 0.5, -0.3, 0.2},
        {1.2, -0.4, 0.6, 0.1, 0.9, 0.7, -0.3, 0.5, 0.2, 0.8, 1.6, -0.7, -0.5, 0.3, 0.4, 1.1, 0.3, 1.0, 0.6, -0.8}};
    for (int q = 0; q < 2; q++) {
        double *z = pts[q], da[N * N] = {0}, dx0[N] = {0};
        __enzyme_autodiff((void *)iterate, enzyme_dup, z, da, enzyme_dup, z + N * N, dx0, enzyme_const, 3);
        for (int k = 0; k < N * N; k++)
            check_close("da", da[k], fd(iterate_flat, z, N * N + N, k), FD_RTOL, FD_ATOL);
        for (int k = 0; k < N; k++)
            check_close("dx0", dx0[k], fd(iterate_flat, z, N * N + N, N * N + k), FD_RTOL, FD_ATOL);
    }
    return zyg_report();
}
