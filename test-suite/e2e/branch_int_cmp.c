// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Branches on an integer argument (const by default) choose the formula.
#include "zyg_check.h"

double f(double x, int mode) {
    double r = x;
    if (mode > 2)
        r = r * r;
    if (mode % 2 == 0)
        r = r + 3.0 * x;
    else
        r = r * x;
    return r;
}

int main(void) {
    double xs[] = {0.5, -1.5, 2.0};
    for (int i = 0; i < 3; i++) {
        double x = xs[i];
        check_close("mode 1", __enzyme_autodiff((void *)f, x, 1), 2 * x, EXACT_RTOL, EXACT_ATOL);
        check_close("mode 2", __enzyme_autodiff((void *)f, x, 2), 4.0, EXACT_RTOL, EXACT_ATOL);
        check_close("mode 3", __enzyme_autodiff((void *)f, x, 3), 3 * x * x, EXACT_RTOL, EXACT_ATOL);
        check_close("mode 4", __enzyme_autodiff((void *)f, x, 4), 2 * x + 3, EXACT_RTOL, EXACT_ATOL);
    }
    return zyg_report();
}
