// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// pow in both arguments, sqrt, cbrt.
#include "zyg_check.h"

double f(double x, double y) { return pow(x, y) + sqrt(x * y) + cbrt(x - y); }

int main(void) {
    double pts[][2] = {{1.5, 2.5}, {0.7, 0.3}, {4.0, -1.5}};
    for (int i = 0; i < 3; i++) {
        double x = pts[i][0], y = pts[i][1];
        if (x * y < 0) continue;
        zyg_grad2 g = __enzyme_autodiff2((void *)f, x, y);
        CHECK_FD2(f, x, y, g);
    }
    // cbrt of a negative number, against the exact derivative.
    double x = 0.5, y = 2.0;
    zyg_grad2 g = __enzyme_autodiff2((void *)f, x, y);
    double want = y * pow(x, y - 1) + y / (2 * sqrt(x * y)) + 1.0 / (3 * cbrt(x - y) * cbrt(x - y));
    check_close("cbrt of negative, df/dx", g.d0, want, 1e-12, 1e-14);
    return zyg_report();
}
