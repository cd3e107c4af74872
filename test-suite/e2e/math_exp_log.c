// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// exp, exp2, log, log2, log10, expm1, log1p.
#include "zyg_check.h"

double f(double x) { return exp(x) + exp2(x) + log(x) + log2(x) + log10(x) + expm1(x) + log1p(x); }

int main(void) {
    double xs[] = {0.4, 1.0, 3.7};
    for (int i = 0; i < 3; i++) {
        double x = xs[i];
        double want = exp(x) + exp2(x) * log(2.0) + 1 / x + 1 / (x * log(2.0)) + 1 / (x * log(10.0)) + exp(x) +
                      1 / (1 + x);
        check_close("d", __enzyme_autodiff((void *)f, x), want, 1e-13, 1e-14);
    }
    return zyg_report();
}
