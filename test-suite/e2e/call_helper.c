// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// A call to another defined function is differentiated through its own primal and adjoint.
#include "zyg_check.h"

__attribute__((noinline)) double soft_plus(double t) { return log(1.0 + exp(t)); }
double f(double x, double y) { return soft_plus(x * y) + soft_plus(y) * x; }

int main(void) {
    double pts[][2] = {{0.5, 1.5}, {-1.0, 0.3}, {2.0, -2.0}};
    for (int i = 0; i < 3; i++) {
        double x = pts[i][0], y = pts[i][1];
        double s = 1.0 / (1.0 + exp(-x * y));
        zyg_grad2 g = __enzyme_autodiff2((void *)f, x, y);
        check_close("df/dx", g.d0, s * y + soft_plus(y), 1e-12, 1e-14);
        check_close("df/dy", g.d1, s * x + x / (1.0 + exp(-y)), 1e-12, 1e-14);
    }
    return zyg_report();
}
