// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Explicit Euler integration of dy/dt = -k y + sin(t): d y(T) / d k and d y(T) / d y0.
#include "zyg_check.h"

double integrate(double k, double y0) {
    double y = y0, t = 0.0, h = 0.01;
    while (t < 1.0) {
        y = y + h * (-k * y + sin(t));
        t += h;
    }
    return y;
}

int main(void) {
    double pts[][2] = {{0.5, 1.0}, {2.0, -0.5}, {0.1, 3.0}};
    for (int i = 0; i < 3; i++) {
        double k = pts[i][0], y0 = pts[i][1];
        zyg_grad2 g = __enzyme_autodiff2((void *)integrate, k, y0);
        check_close("dy/dk", g.d0, FD2_0(integrate, k, y0), FD_RTOL, FD_ATOL);
        check_close("dy/dy0", g.d1, FD2_1(integrate, k, y0), FD_RTOL, FD_ATOL);
    }
    return zyg_report();
}
