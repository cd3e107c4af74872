// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// With -ffast-math clang emits llvm.* intrinsics (llvm.sqrt, llvm.exp, llvm.sin, ...),
// fast-math flags, and may reassociate; the gradient still matches.
// RUN: %grad-run -O2 %s %t.fast -ffast-math | FileCheck %s
#include "zyg_check.h"

double f(double x, double y) { return sqrt(x * x + y) * exp(-x) + sin(y) * log(x) + pow(x, 3.0); }

int main(void) {
    double pts[][2] = {{0.8, 0.5}, {1.7, 2.0}, {2.5, 0.1}};
    for (int i = 0; i < 3; i++) {
        double x = pts[i][0], y = pts[i][1];
        zyg_grad2 g = __enzyme_autodiff2((void *)f, x, y);
        check_close("df/dx", g.d0, FD2_0(f, x, y), 1e-5, 1e-6);
        check_close("df/dy", g.d1, FD2_1(f, x, y), 1e-5, 1e-6);
    }
    return zyg_report();
}
