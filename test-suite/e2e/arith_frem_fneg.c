// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// fmod is a call to libm's fmod unless errno is off: then clang writes the frem instruction.
// RUN: %grad-run -O0 %s %t.noerrno -fno-math-errno | FileCheck %s
// RUN: %grad-run -O2 %s %t.noerrno -fno-math-errno | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// frem (fmod) and fneg: d fmod(a, b) = (1, -trunc(a / b)), away from a / b integer.
#include "zyg_check.h"

double f(double x, double y) { return -fmod(x * x, y) + -(x * y); }

int main(void) {
    double pts[][2] = {{1.3, 0.7}, {2.1, 1.1}, {-1.7, 0.9}};
    for (int i = 0; i < 3; i++) {
        double x = pts[i][0], y = pts[i][1];
        zyg_grad2 g = __enzyme_autodiff2((void *)f, x, y);
        CHECK_FD2(f, x, y, g);
    }
    return zyg_report();
}
