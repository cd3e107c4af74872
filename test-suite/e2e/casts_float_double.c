// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// fpext and fptrunc: a double function that computes partly in float.
#include "zyg_check.h"

static float shrink(double x) { return (float)x * 0.5f; }
double f(double x) {
    float h = shrink(x);
    double back = h;          // fpext
    return back * back + (float)(x * x);
}

int main(void) {
    double xs[] = {0.5, -1.25, 3.0};
    for (int i = 0; i < 3; i++) {
        double x = xs[i];
        double d = __enzyme_autodiff((void *)f, x);
        // d/dx [(x/2)^2 + x^2] = x/2 + 2x, up to float rounding of the forward values.
        check_close("df/dx", d, 2.5 * x, 1e-6, 1e-6);
    }
    return zyg_report();
}
