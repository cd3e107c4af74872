// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// The conditional operator becomes select at -O2 and branches at -O0.
#include "zyg_check.h"

double f(double x, double y) {
    double a = x > y ? x * y : y - x;
    double b = x < 0.5 ? a * a : a + x;
    return b;
}

int main(void) {
    double pts[][2] = {{1.0, 0.3}, {0.2, 0.9}, {-0.4, -1.0}, {2.0, 3.0}};
    for (int i = 0; i < 4; i++) {
        double x = pts[i][0], y = pts[i][1];
        zyg_grad2 g = __enzyme_autodiff2((void *)f, x, y);
        CHECK_FD2(f, x, y, g);
    }
    return zyg_report();
}
