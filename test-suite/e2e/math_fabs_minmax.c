// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// fabs, fmin, fmax: piecewise-linear, checked away from their kinks.
#include "zyg_check.h"

double f(double x, double y) { return fabs(x - 1.0) * y + fmin(x, y) * 2.0 + fmax(x * x, y) - fabs(y); }

int main(void) {
    double pts[][2] = {{0.2, 0.9}, {2.0, 0.5}, {-1.5, 3.0}, {1.7, -2.0}};
    for (int i = 0; i < 4; i++) {
        double x = pts[i][0], y = pts[i][1];
        zyg_grad2 g = __enzyme_autodiff2((void *)f, x, y);
        CHECK_FD2(f, x, y, g);
    }
    return zyg_report();
}
