// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// break and continue make loops with several exits and latches.
#include "zyg_check.h"

double f(double x) {
    double acc = 0.0;
    for (int i = 0; i < 50; i++) {
        double t = x * i;
        if (i % 3 == 1)
            continue;
        acc += sin(t) * 0.3;
        if (acc > 2.0 || acc < -2.0)
            break;
        if (i > 10 && t > 4.0)
            break;
    }
    return acc;
}

int main(void) {
    double xs[] = {0.05, 0.31, 0.8, -0.4};
    for (int i = 0; i < 4; i++)
        check_close("df/dx", __enzyme_autodiff((void *)f, xs[i]), FD1(f, xs[i]), FD_RTOL, FD_ATOL);
    return zyg_report();
}
