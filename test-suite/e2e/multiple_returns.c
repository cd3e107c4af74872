// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Several return statements: the adjoint starts at whichever one ran.
#include "zyg_check.h"

double f(double x, double y) {
    if (x < -1.0)
        return x * y;
    double t = x * x;
    if (t > y)
        return t - y * y;
    for (int i = 0; i < 3; i++) {
        t = t * 0.5 + y;
        if (t > 10.0)
            return sqrt(t);
    }
    return t * x;
}

int main(void) {
    double pts[][2] = {{-2.0, 3.0}, {1.5, 0.5}, {0.5, 2.0}, {0.5, 9.0}};
    for (int i = 0; i < 4; i++) {
        double x = pts[i][0], y = pts[i][1];
        zyg_grad2 g = __enzyme_autodiff2((void *)f, x, y);
        CHECK_FD2(f, x, y, g);
    }
    return zyg_report();
}
