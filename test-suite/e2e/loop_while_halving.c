// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// while (x > 1) x = x / 2: the trip count depends on x; d/dx = 2^-k for k halvings.
#include "zyg_check.h"

double halve(double x) {
    while (x > 1.0)
        x = x / 2.0;
    return x * x;
}

int main(void) {
    double xs[] = {0.7, 3.0, 100.0, 1000.5};
    for (int i = 0; i < 4; i++) {
        double x = xs[i], y = x, scale = 1.0;
        while (y > 1.0) { y /= 2.0; scale /= 2.0; }
        double d = __enzyme_autodiff((void *)halve, x);
        check_close("d halve", d, 2.0 * y * scale, EXACT_RTOL, EXACT_ATOL);
    }
    return zyg_report();
}
