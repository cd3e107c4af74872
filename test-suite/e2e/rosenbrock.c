// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// The Rosenbrock function in 2D and its textbook gradient.
#include "zyg_check.h"

double rosen(double x, double y) { return (1 - x) * (1 - x) + 100 * (y - x * x) * (y - x * x); }

int main(void) {
    double pts[][2] = {{-1.2, 1.0}, {0.5, 0.5}, {2.0, 3.5}, {1.0, 1.0}};
    for (int i = 0; i < 4; i++) {
        double x = pts[i][0], y = pts[i][1];
        zyg_grad2 g = __enzyme_autodiff2((void *)rosen, x, y);
        check_close("dx", g.d0, -2 * (1 - x) - 400 * x * (y - x * x), 1e-13, 1e-12);
        check_close("dy", g.d1, 200 * (y - x * x), 1e-13, 1e-12);
    }
    return zyg_report();
}
