// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// enzyme_const on floating-point arguments: no gradient for them, the rest in order.
#include "zyg_check.h"

double f(double a, double x, double b, double y) { return a * x * x + b * sin(y) + a * b * x * y; }

int main(void) {
    double pts[][4] = {{1.5, 0.3, -2.0, 0.7}, {-0.5, 2.0, 0.25, -1.0}, {3.0, -1.0, 1.0, 2.0}};
    for (int i = 0; i < 3; i++) {
        double a = pts[i][0], x = pts[i][1], b = pts[i][2], y = pts[i][3];
        zyg_grad2 g = __enzyme_autodiff2((void *)f, enzyme_const, a, x, enzyme_const, b, y);
        check_close("df/dx", g.d0, 2 * a * x + a * b * y, EXACT_RTOL, EXACT_ATOL);
        check_close("df/dy", g.d1, b * cos(y) + a * b * x, 1e-14, 1e-15);
        double dx = __enzyme_autodiff((void *)f, enzyme_const, a, enzyme_out, x, enzyme_const, b, enzyme_const, y);
        check_close("df/dx alone", dx, 2 * a * x + a * b * y, EXACT_RTOL, EXACT_ATOL);
    }
    return zyg_report();
}
