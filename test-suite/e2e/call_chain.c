// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// A helper calling a helper calling a helper.
#include "zyg_check.h"

__attribute__((noinline)) double c3(double t) { return t * t * t - t; }
__attribute__((noinline)) double c2(double t, double u) { return c3(t * u) + sin(u); }
__attribute__((noinline)) double c1(double t) { return c2(t, t + 1.0) * c3(t); }
double f(double x) { return c1(x) + c2(x, 2.0); }

int main(void) {
    double xs[] = {0.3, -0.6, 1.2};
    for (int i = 0; i < 3; i++)
        check_close("df/dx", __enzyme_autodiff((void *)f, xs[i]), FD1(f, xs[i]), FD_RTOL, FD_ATOL);
    return zyg_report();
}
