// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Nested loops: a double sum whose inner trip count depends on the outer index.
#include "zyg_check.h"

double f(double x, double y, int n) {
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        double row = x * i;
        for (int j = 0; j <= i; j++)
            s += sin(row + y * j) * 0.1;
    }
    return s;
}

int main(void) {
    double pts[][2] = {{0.3, 0.2}, {-0.7, 1.1}, {1.4, -0.6}};
    for (int k = 0; k < 3; k++) {
        double x = pts[k][0], y = pts[k][1], gx = 0, gy = 0;
        for (int i = 0; i < 7; i++)
            for (int j = 0; j <= i; j++) {
                gx += cos(x * i + y * j) * 0.1 * i;
                gy += cos(x * i + y * j) * 0.1 * j;
            }
        zyg_grad2 g = __enzyme_autodiff2((void *)f, x, y, 7);
        check_close("df/dx", g.d0, gx, 1e-12, 1e-13);
        check_close("df/dy", g.d1, gy, 1e-12, 1e-13);
    }
    return zyg_report();
}
