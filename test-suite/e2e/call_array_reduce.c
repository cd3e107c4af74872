// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t.fast -ffast-math | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Helpers returning a double computed from an array: a norm, a numerically stable
// logsumexp (max-shifted, the max taken by comparisons) and a weighted mean, composed
// and called on the input and on a local array derived from it.
#include "zyg_check.h"

__attribute__((noinline)) static double norm2(const double *x, int n) {
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += x[i] * x[i];
    return sqrt(s);
}

__attribute__((noinline)) static double logsumexp(const double *x, int n) {
    double m = x[0];
    for (int i = 1; i < n; i++)
        if (x[i] > m)
            m = x[i];
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += exp(x[i] - m);
    return m + log(s);
}

__attribute__((noinline)) static double wmean(const double *x, const double *w, int n) {
    double s = 0.0, t = 0.0;
    for (int i = 0; i < n; i++) {
        s += w[i] * x[i];
        t += w[i];
    }
    return s / t;
}

enum { N = 6 };

double reduce(const double *x, const double *w) {
    double y[N];
    double nx = norm2(x, N);
    for (int i = 0; i < N; i++)
        y[i] = x[i] / nx;
    return logsumexp(x, N) + logsumexp(y, N) * wmean(x, w, N) + norm2(y, N) * nx;
}

/* z = (x[N], w[N]) */
static double reduce_flat(const double *z) {
    double x[N], w[N];
    for (int i = 0; i < N; i++) x[i] = z[i], w[i] = z[N + i];
    return reduce(x, w);
}

static double fd(double (*g)(const double *), const double *x, int n, int k) {
    double a[64], b[64], h = ZYG_STEP(x[k]);
    for (int i = 0; i < n; i++) a[i] = b[i] = x[i];
    a[k] += h;
    b[k] -= h;
    return (g(a) - g(b)) / (2 * h);
}

int main(void) {
    double pts[2][2 * N] = {{0.3, -1.2, 2.1, 0.8, -0.5, 1.4, 1.0, 0.5, 2.0, 0.3, 1.5, 0.8},
                            {-0.7, 0.9, 0.1, -2.2, 1.6, 0.4, 0.6, 1.3, 0.2, 0.9, 1.1, 0.4}};
    for (int q = 0; q < 2; q++) {
        double x[N], w[N], dx[N] = {0}, dw[N] = {0};
        for (int i = 0; i < N; i++) x[i] = pts[q][i], w[i] = pts[q][N + i];
        __enzyme_autodiff((void *)reduce, enzyme_dup, x, dx, enzyme_dup, w, dw);
        for (int k = 0; k < N; k++) {
            check_close("dx", dx[k], fd(reduce_flat, pts[q], 2 * N, k), FD_RTOL, FD_ATOL);
            check_close("dw", dw[k], fd(reduce_flat, pts[q], 2 * N, N + k), FD_RTOL, FD_ATOL);
        }
    }
    return zyg_report();
}
