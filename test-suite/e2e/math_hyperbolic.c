// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// tanh, sinh, cosh.
#include "zyg_check.h"

double f(double x) { return tanh(x) * 2.0 + sinh(x) - cosh(x * 0.5); }

int main(void) {
    double xs[] = {0.2, -1.3, 2.4};
    for (int i = 0; i < 3; i++) {
        double x = xs[i], t = tanh(x);
        check_close("d", __enzyme_autodiff((void *)f, x), 2.0 * (1 - t * t) + cosh(x) - 0.5 * sinh(x * 0.5), 1e-13,
                    1e-14);
    }
    return zyg_report();
}
