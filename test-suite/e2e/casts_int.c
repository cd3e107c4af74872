// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// sitofp/uitofp/fptosi: no derivative flows through integers.
#include "zyg_check.h"

double f(double x) {
    int k = (int)(x * 3.0);          // fptosi
    unsigned u = (unsigned)k * 2u;
    double kk = (double)k;           // sitofp
    double uu = (double)u;           // uitofp
    return x * kk + uu * x * x;
}

int main(void) {
    double xs[] = {0.4, 1.7, 2.2, 5.1};
    for (int i = 0; i < 4; i++) {
        double x = xs[i];
        int k = (int)(x * 3.0);
        double d = __enzyme_autodiff((void *)f, x);
        check_close("df/dx", d, (double)k + 2.0 * (2.0 * k) * x, EXACT_RTOL, EXACT_ATOL);
    }
    return zyg_report();
}
