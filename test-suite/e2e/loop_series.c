// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// exp(x) by its Taylor series, summed until the terms are tiny: d/dx = the sum itself.
#include "zyg_check.h"

double series_exp(double x) {
    double sum = 1.0, term = 1.0;
    int n = 1;
    while (fabs(term) > 1e-17 * fabs(sum)) {
        term = term * x / n;
        sum += term;
        n++;
    }
    return sum;
}

int main(void) {
    double xs[] = {0.5, -1.2, 3.3};
    for (int i = 0; i < 3; i++) {
        double x = xs[i];
        check_close("d exp series", __enzyme_autodiff((void *)series_exp, x), exp(x), 1e-12, 1e-14);
    }
    return zyg_report();
}
