// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// In-place updates x[i] = f(x[i], x[i-1]): the values overwritten are saved on the tape,
// and each store's adjoint hands the shadow to the stored value.
#include "zyg_check.h"

double recurrence(double *x, int n) {
    for (int i = 1; i < n; i++)
        x[i] = x[i] * x[i - 1] + sin(x[i]);
    for (int i = n - 2; i >= 0; i--)
        x[i] = x[i] + 0.5 * x[i + 1];
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += x[i] * (i + 1);
    return s;
}

int main(void) {
    double x0[5] = {0.5, 0.9, -1.1, 0.3, 0.8};
    double x[5], dx[5] = {0};
    for (int i = 0; i < 5; i++) x[i] = x0[i];
    __enzyme_autodiff((void *)recurrence, x, dx, 5);
    for (int k = 0; k < 5; k++) {
        double a[5], b[5], h = 1e-6;
        for (int i = 0; i < 5; i++) a[i] = b[i] = x0[i];
        a[k] += h;
        b[k] -= h;
        check_close("dx[k]", dx[k], (recurrence(a, 5) - recurrence(b, 5)) / (2 * h), FD_RTOL, FD_ATOL);
    }
    return zyg_report();
}
