// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// A global array written and read at constant indices: clang addresses s[2] with a
// constant expression (getelementptr on the global), which zyg turns into an instruction
// so that its shadow can follow.
#include "zyg_check.h"

static double s[5];
struct { double a, b; } pair;

double f(double x) {
    s[2] = x * x;
    s[4] = sin(x);
    pair.b = s[2] + s[4];
    return s[2] * x + pair.b * s[4];
}

int main(void) {
    for (double x = -1.0; x < 2.0; x += 0.7) {
        double d = __enzyme_autodiff((void *)f, x);
        check_close("df/dx", d, FD1(f, x), FD_RTOL, FD_ATOL);
    }
    return zyg_report();
}
