// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// erf, erfc, fma (all three operands), copysign, hypot.
#include "zyg_check.h"

double f(double x, double y, double z) { return erf(x) + erfc(y * 0.5) + fma(x, y, z * z) + copysign(x, -y) * z + hypot(x, z); }

int main(void) {
    double pts[][3] = {{0.3, 0.5, 1.2}, {-0.7, 1.5, -0.4}, {1.1, -0.9, 2.0}};
    for (int i = 0; i < 3; i++) {
        double x = pts[i][0], y = pts[i][1], z = pts[i][2];
        zyg_grad3 g = __enzyme_autodiff3((void *)f, x, y, z);
        check_close("df/dx", g.d0, FD3_0(f, x, y, z), FD_RTOL, FD_ATOL);
        check_close("df/dy", g.d1, FD3_1(f, x, y, z), FD_RTOL, FD_ATOL);
        check_close("df/dz", g.d2, FD3_2(f, x, y, z), FD_RTOL, FD_ATOL);
    }
    return zyg_report();
}
