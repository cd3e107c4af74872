// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// fadd and fsub: d/dx and d/dy of a linear combination, exact.
#include "zyg_check.h"

double f(double x, double y) { return 3.0 * x - y + (x - 2.5) - (y + x) + 0.5; }

int main(void) {
    double pts[][2] = {{0.0, 1.0}, {-2.5, 4.0}, {1e3, -7.25}};
    for (int i = 0; i < 3; i++) {
        zyg_grad2 g = __enzyme_autodiff2((void *)f, pts[i][0], pts[i][1]);
        check_close("df/dx", g.d0, 3.0, EXACT_RTOL, EXACT_ATOL);
        check_close("df/dy", g.d1, -2.0, EXACT_RTOL, EXACT_ATOL);
    }
    return zyg_report();
}
