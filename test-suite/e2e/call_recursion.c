// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Recursive functions: each activation's tape is allocated on the heap by its caller and
// freed by the caller's adjoint. Self recursion, recursion over an array, mutual recursion.
#include "zyg_check.h"

double rpow(double x, int n) { return n == 0 ? 1.0 : x * rpow(x, n - 1); }

double rsum(const double *a, int n) {
    if (n == 0)
        return 0.0;
    return sin(a[n - 1]) * a[n - 1] + rsum(a, n - 1);
}

double odd(double x, int n);
double even(double x, int n) { return n <= 0 ? x : cos(odd(x * 1.1, n - 1)); }
double odd(double x, int n) { return n <= 0 ? x * x : even(x, n - 1) * x; }

static double even5(double x) { return even(x, 5); }

int main(void) {
    for (int k = 0; k < 3; k++) {
        double x = 0.3 + 0.4 * k;
        check_close("rpow", __enzyme_autodiff((void *)rpow, x, enzyme_const, 7), 7 * pow(x, 6), 1e-13, 1e-15);
        check_close("even/odd", __enzyme_autodiff((void *)even, x, enzyme_const, 5), FD1(even5, x), FD_RTOL, FD_ATOL);
    }
    double a[5] = {0.2, -0.4, 1.3, 0.8, -1.1}, da[5] = {0};
    __enzyme_autodiff((void *)rsum, a, da, 5);
    for (int i = 0; i < 5; i++)
        check_close("rsum", da[i], sin(a[i]) + a[i] * cos(a[i]), 1e-13, 1e-15);
    return zyg_report();
}
