// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Divide and conquer over an array: a recursive pairwise sum of f(x[i]) that splits at the
// midpoint (two recursive calls per activation, a leaf case per element and per pair),
// and a recursive product-combination of the halves; one tape per activation.
#include "zyg_check.h"

static double leaf(double v) { return v * sin(v) + 0.5 * v; }

double rsum(const double *x, int lo, int hi) {
    if (hi - lo == 1)
        return leaf(x[lo]);
    if (hi - lo == 2)
        return leaf(x[lo]) + leaf(x[lo + 1]);
    int mid = lo + (hi - lo) / 2;
    return rsum(x, lo, mid) + rsum(x, mid, hi);
}

/* combine halves nonlinearly: c(a, b) = a * b / (1 + a^2) + b */
double rcombine(const double *x, int n) {
    if (n == 1)
        return tanh(x[0]);
    int h = n / 2;
    double a = rcombine(x, h), b = rcombine(x + h, n - h);
    return a * b / (1.0 + a * a) + b;
}

double both(const double *x, int n) { return rsum(x, 0, n) + rcombine(x, n); }

enum { N = 11 };
static double both_n(const double *x) { return both(x, N); }

static double fd(double (*g)(const double *), const double *x, int n, int k) {
    double a[64], b[64], h = ZYG_STEP(x[k]);
    for (int i = 0; i < n; i++) a[i] = b[i] = x[i];
    a[k] += h;
    b[k] -= h;
    return (g(a) - g(b)) / (2 * h);
}

int main(void) {
    for (int q = 0; q < 2; q++) {
        double x[N], dx[N] = {0};
        for (int i = 0; i < N; i++) x[i] = 1.3 * sin(1.9 * i + q) + 0.1;
        __enzyme_autodiff((void *)both, enzyme_dup, x, dx, enzyme_const, N);
        for (int k = 0; k < N; k++)
            check_close("dx", dx[k], fd(both_n, x, N, k), FD_RTOL, FD_ATOL);
    }
    return zyg_report();
}
