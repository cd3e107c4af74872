// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// pow in both arguments, sqrt, cbrt.
#include "zyg_check.h"

double f(double x, double y) { return pow(x, y) + sqrt(x * x + y * y) + cbrt(x - y); }

int main(void) {
    // pow's base stays positive; y and x - y take both signs (cbrt of a negative number).
    double pts[][2] = {{1.5, 2.5}, {0.7, 0.3}, {4.0, -1.5}, {0.5, -2.0}};
    for (int i = 0; i < 4; i++) {
        double x = pts[i][0], y = pts[i][1];
        zyg_grad2 g = __enzyme_autodiff2((void *)f, x, y);
        CHECK_FD2(f, x, y, g);
        double r = sqrt(x * x + y * y), c = cbrt(x - y);
        check_close("df/dx exact", g.d0, y * pow(x, y - 1) + x / r + 1.0 / (3 * c * c), 1e-12, 1e-14);
        check_close("df/dy exact", g.d1, pow(x, y) * log(x) + y / r - 1.0 / (3 * c * c), 1e-12, 1e-14);
    }
    return zyg_report();
}
