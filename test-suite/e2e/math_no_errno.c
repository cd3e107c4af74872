// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// -fno-math-errno lets clang turn sqrt, fabs, fmin, floor and friends into llvm.* intrinsics.
// RUN: %grad-run -O1 %s %t.noerrno -fno-math-errno | FileCheck %s
#include "zyg_check.h"

double f(double x) { return sqrt(x) + fabs(x - 2.0) + fmin(x, 1.0) + fmax(x, 1.0) + floor(x) + exp(x) + pow(x, 1.5); }

int main(void) {
    double xs[] = {0.5, 1.5, 3.2};
    for (int i = 0; i < 3; i++) {
        double x = xs[i];
        double want = 0.5 / sqrt(x) + (x > 2 ? 1 : -1) + (x < 1 ? 1 : 0) + (x > 1 ? 1 : 0) + exp(x) + 1.5 * sqrt(x);
        check_close("df/dx", __enzyme_autodiff((void *)f, x), want, 1e-13, 1e-14);
    }
    return zyg_report();
}
