// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// A counted loop with a constant trip count (unrolled at -O2).
#include "zyg_check.h"

double f(double x, double y) {
    double s = 0.0, t = x;
    for (int i = 0; i < 6; i++) {
        s += t * y;
        t = t * 0.9 + y * 0.1;
    }
    return s;
}

int main(void) {
    double pts[][2] = {{1.0, 2.0}, {-0.5, 0.25}, {3.0, -1.0}};
    for (int i = 0; i < 3; i++) {
        double x = pts[i][0], y = pts[i][1];
        zyg_grad2 g = __enzyme_autodiff2((void *)f, x, y);
        CHECK_FD2(f, x, y, g);
    }
    return zyg_report();
}
