// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// A helper with an integer argument, and a helper whose float argument is inactive
// in one call and active in another (two specialisations).
#include "zyg_check.h"

__attribute__((noinline)) double scaled(double a, int k, double b) { return a * k + b * b * k; }

double f(double x) {
    double c = 1.5;                     // constant: inactive in the first call
    return scaled(x, 3, c) + scaled(c, 2, x);
}

int main(void) {
    double xs[] = {0.5, -2.0, 4.0};
    for (int i = 0; i < 3; i++) {
        double x = xs[i];
        check_close("df/dx", __enzyme_autodiff((void *)f, x), 3.0 + 2.0 * x * 2.0, EXACT_RTOL, EXACT_ATOL);
    }
    return zyg_report();
}
