// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// fmul and fdiv: f = x*y / (x + y*y) against the quotient rule.
#include "zyg_check.h"

double f(double x, double y) { return x * y / (x + y * y); }

int main(void) {
    double pts[][2] = {{1.0, 2.0}, {-0.5, 1.5}, {3.0, -0.75}, {0.2, 0.1}};
    for (int i = 0; i < 4; i++) {
        double x = pts[i][0], y = pts[i][1], q = x + y * y;
        zyg_grad2 g = __enzyme_autodiff2((void *)f, x, y);
        check_close("df/dx", g.d0, (y * q - x * y) / (q * q), 1e-13, 1e-14);
        check_close("df/dy", g.d1, (x * q - x * y * 2 * y) / (q * q), 1e-13, 1e-14);
    }
    return zyg_report();
}
