// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// RUN: %grad-run -O3 %s %t.v3 %march-v3 | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Conditional updates that clang vectorises with AVX2 into llvm.masked.load and
// llvm.masked.store (the third RUN line, where the machine has AVX2): a clipped in-place
// update, and a sum over the elements a mask selects.
#include "zyg_check.h"

void clip_scale(double *x, const int *keep, int n) {
    for (int i = 0; i < n; i++)
        if (keep[i])
            x[i] = x[i] * x[i] * 0.5 + x[i];
}

double masked_sum(const double *x, const int *keep, int n) {
    double s = 0.0;
    for (int i = 0; i < n; i++)
        if (keep[i])
            s += x[i] * x[i];
    return s;
}

double f(double *x, const int *keep, int n) {
    clip_scale(x, keep, n);
    double s = masked_sum(x, keep, n);
    for (int i = 0; i < n; i++)
        s += sin(x[i]);
    return s;
}

int main(void) {
    enum { N = 19 };
    int keep[N];
    double x0[N];
    for (int i = 0; i < N; i++) {
        keep[i] = (i * 7) % 3 != 0;
        x0[i] = 0.1 * i - 0.8;
    }
    double x[N], dx[N] = {0};
    for (int i = 0; i < N; i++) x[i] = x0[i];
    __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, keep, enzyme_const, N);
    for (int k = 0; k < N; k++) {
        double a[N], b[N], h = 1e-6;
        for (int i = 0; i < N; i++) a[i] = b[i] = x0[i];
        a[k] += h;
        b[k] -= h;
        check_close("df/dx", dx[k], (f(a, keep, N) - f(b, keep, N)) / (2 * h), FD_RTOL, FD_ATOL);
    }
    return zyg_report();
}
