// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// zyg's own spellings: __zyg_autodiff with zyg_const and zyg_out.
#include "zyg_check.h"

double __zyg_autodiff(void *, ...);
zyg_grad2 __zyg_autodiff_pair(void *, ...);

double f(double x, double k, double y) { return k * x * y + y * y; }

int main(void) {
    double pts[][3] = {{1.0, 2.0, 3.0}, {-0.5, 4.0, 0.1}, {2.5, -1.0, -2.0}};
    for (int i = 0; i < 3; i++) {
        double x = pts[i][0], k = pts[i][1], y = pts[i][2];
        double dy = __zyg_autodiff((void *)f, zyg_const, x, zyg_const, k, zyg_out, y);
        check_close("df/dy", dy, k * x + 2 * y, EXACT_RTOL, EXACT_ATOL);
        zyg_grad2 g = __zyg_autodiff_pair((void *)f, zyg_out, x, zyg_const, k, y);
        check_close("df/dx", g.d0, k * y, EXACT_RTOL, EXACT_ATOL);
        check_close("df/dy", g.d1, k * x + 2 * y, EXACT_RTOL, EXACT_ATOL);
    }
    return zyg_report();
}
