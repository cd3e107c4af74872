// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// asin, acos, atan, and atan2 in both arguments.
#include "zyg_check.h"

double f(double x, double y) { return asin(x) + 2 * acos(x * 0.5) + atan(x * y) + atan2(y, x); }

int main(void) {
    double pts[][2] = {{0.3, 0.8}, {-0.6, 1.7}, {0.9, -2.2}};
    for (int i = 0; i < 3; i++) {
        double x = pts[i][0], y = pts[i][1];
        double r2 = x * x + y * y;
        double dx = 1 / sqrt(1 - x * x) - 1 / sqrt(1 - x * x / 4) + y / (1 + x * x * y * y) - y / r2;
        double dy = x / (1 + x * x * y * y) + x / r2;
        zyg_grad2 g = __enzyme_autodiff2((void *)f, x, y);
        check_close("df/dx", g.d0, dx, 1e-13, 1e-14);
        check_close("df/dy", g.d1, dy, 1e-13, 1e-14);
    }
    return zyg_report();
}
