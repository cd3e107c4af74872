// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// The Bessel function J_nu(x) by its power series (nu an integer here), and its
// derivative against the identity J_nu'(x) = (J_{nu-1}(x) - J_{nu+1}(x)) / 2.
#include "zyg_check.h"

double bessel_j(double x, int nu) {
    double half = 0.5 * x, term = 1.0, sum = 0.0;
    for (int k = 1; k <= nu; k++)
        term *= half / k;
    for (int m = 0; m < 60; m++) {
        sum += term;
        term *= -half * half / ((m + 1.0) * (m + 1.0 + nu));
        if (fabs(term) < 1e-18)
            break;
    }
    return sum;
}

static double jn_signed(double x, int n) { return n < 0 ? -bessel_j(x, -n) : bessel_j(x, n); }

int main(void) {
    double xs[] = {0.5, 2.3, 7.1};
    for (int i = 0; i < 3; i++)
        for (int nu = 1; nu <= 3; nu++) {
            double x = xs[i];
            double want = 0.5 * (jn_signed(x, nu - 1) - jn_signed(x, nu + 1));
            check_close("dJ/dx", __enzyme_autodiff((void *)bessel_j, x, nu), want, 1e-10, 1e-12);
        }
    return zyg_report();
}
