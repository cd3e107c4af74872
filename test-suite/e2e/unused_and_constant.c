// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// An out argument that does not influence the result gets a zero gradient; a function
// whose result is constant gets zero everywhere.
#include "zyg_check.h"

double f(double x, double unused, double y) { return x * y; }
double constant(double x) { (void)x; return 4.0; }

int main(void) {
    double pts[][2] = {{1.5, 2.0}, {-3.0, 0.5}, {0.0, 7.0}};
    for (int i = 0; i < 3; i++) {
        double x = pts[i][0], y = pts[i][1];
        zyg_grad3 g = __enzyme_autodiff3((void *)f, x, 9.0, y);
        check_close("df/dx", g.d0, y, EXACT_RTOL, EXACT_ATOL);
        check_close("df/dunused", g.d1, 0.0, EXACT_RTOL, EXACT_ATOL);
        check_close("df/dy", g.d2, x, EXACT_RTOL, EXACT_ATOL);
        check_close("constant", __enzyme_autodiff((void *)constant, x), 0.0, EXACT_RTOL, EXACT_ATOL);
    }
    return zyg_report();
}
