// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// if/else on float comparisons, with a different formula in each arm.
#include "zyg_check.h"

double f(double x, double y) {
    double r;
    if (x * y > 1.0) {
        r = x * x * y;
    } else if (x - y <= -0.5) {
        r = sin(x) + y * y * y;
    } else {
        r = exp(x - y);
    }
    if (r != r) r = 0;
    return r;
}

int main(void) {
    double pts[][2] = {{2.0, 1.0}, {-1.0, 0.5}, {0.3, 0.1}, {-2.0, -3.0}};
    for (int i = 0; i < 4; i++) {
        double x = pts[i][0], y = pts[i][1];
        zyg_grad2 g = __enzyme_autodiff2((void *)f, x, y);
        CHECK_FD2(f, x, y, g);
    }
    return zyg_report();
}
