// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// x^n by a loop of multiplications: d/dx = n x^(n-1), for several n.
#include "zyg_check.h"

double power(double x, int n) {
    double r = 1.0;
    for (int i = 0; i < n; i++)
        r *= x;
    return r;
}

int main(void) {
    double xs[] = {1.1, -0.9, 2.0};
    int ns[] = {0, 1, 5, 40};
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 4; k++) {
            double x = xs[i];
            int n = ns[k];
            double want = n == 0 ? 0.0 : n * pow(x, n - 1);
            check_close("d x^n", __enzyme_autodiff((void *)power, x, enzyme_const, n), want, 1e-12, 1e-14);
        }
    return zyg_report();
}
