// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// A switch on an integer computed from the input; several cases share a block.
#include "zyg_check.h"

double f(double x) {
    int k = (int)floor(x);
    double r;
    switch (k) {
    case 0: r = x * x; break;
    case 1:
    case 2: r = sin(x) * x; break;
    case -1: r = exp(x); break;
    case 7: return 1.0 / x;
    default: r = x * 0.25;
    }
    return r + x;
}

int main(void) {
    double xs[] = {0.5, 1.5, 2.25, -0.5, 7.5, 4.0};
    for (int i = 0; i < 6; i++) {
        double x = xs[i];
        check_close("df/dx", __enzyme_autodiff((void *)f, x), FD1(f, x), FD_RTOL, FD_ATOL);
    }
    return zyg_report();
}
