// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// C99 variable-length arrays holding active values: one per call, and one per iteration of
// a loop (stack space released and taken again each time). Their shadows live on the heap
// until the adjoint has used them.
#include "zyg_check.h"

double f(const double *x, int n) {
    double tmp[n];
    for (int i = 0; i < n; i++)
        tmp[i] = x[i] * x[i];
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += tmp[i] * tmp[(i + 1) % n];
    for (int r = 1; r <= 3; r++) {
        double row[r + 1];  // a VLA inside a loop
        for (int j = 0; j <= r; j++)
            row[j] = sin(x[(j + r) % n]) * r;
        for (int j = 0; j <= r; j++)
            s += row[j] * row[r - j];
    }
    return s;
}

int main(void) {
    double pts[2][5] = {{0.5, -1.0, 2.0, 0.3, -0.7}, {1.2, 0.4, -0.6, 0.9, 0.1}};
    for (int p = 0; p < 2; p++) {
        double *x = pts[p], dx[5] = {0};
        __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, 5);
        for (int k = 0; k < 5; k++) {
            double a[5], b[5], h = 1e-6;
            for (int i = 0; i < 5; i++) a[i] = b[i] = x[i];
            a[k] += h;
            b[k] -= h;
            check_close("df/dx", dx[k], (f(a, 5) - f(b, 5)) / (2 * h), FD_RTOL, FD_ATOL);
        }
    }
    return zyg_report();
}
