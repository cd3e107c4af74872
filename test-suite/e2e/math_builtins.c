// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// __builtin_fma, __builtin_sqrt, __builtin_fmin, __builtin_copysign, __builtin_fabs.
#include "zyg_check.h"

double f(double x, double y) {
    return __builtin_fma(x, y, x) + __builtin_sqrt(x * y) + __builtin_fmin(x, y) * 3 + __builtin_copysign(y, x) +
           __builtin_fabs(x - y);
}

int main(void) {
    double pts[][2] = {{0.5, 2.0}, {3.0, 1.5}, {1.2, 0.4}};
    for (int i = 0; i < 3; i++) {
        double x = pts[i][0], y = pts[i][1];
        zyg_grad2 g = __enzyme_autodiff2((void *)f, x, y);
        CHECK_FD2(f, x, y, g);
    }
    return zyg_report();
}
