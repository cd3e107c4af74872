// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// goto into the middle of a loop: an irreducible CFG (two entries into one cycle).
#include "zyg_check.h"

double f(double x, int start_inside) {
    double v = x;
    int n = 0;
    if (start_inside)
        goto inside;
top:
    v = v * 0.5 + 0.25;
inside:
    v = v + sin(v) * 0.1;
    n++;
    if (n < 6)
        goto top;
    return v;
}

static double f0(double x) { return f(x, 0); }
static double f1(double x) { return f(x, 1); }

int main(void) {
    double xs[] = {0.3, -1.1, 2.5};
    for (int i = 0; i < 3; i++) {
        double x = xs[i];
        check_close("outside", __enzyme_autodiff((void *)f, x, 0), FD1(f0, x), FD_RTOL, FD_ATOL);
        check_close("inside", __enzyme_autodiff((void *)f, x, 1), FD1(f1, x), FD_RTOL, FD_ATOL);
    }
    return zyg_report();
}
