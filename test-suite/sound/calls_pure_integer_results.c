// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// Calls that take an active value but can only pass on an integer (lround, ilogb, isnan,
// signbit, llvm.is.fpclass) move no derivative: zyg differentiates around them rather than
// refusing, and the integer they return scales the result as a constant.
// CHECK-NOT: FAIL
// CHECK: ALL OK
#include "zyg_check.h"

double f(double x) {
    long r = lround(3.0 * x);
    int e = ilogb(x);
    double bump = isnan(x) ? 100.0 : 0.0;
    if (signbit(x))
        bump += 1.0;
    return x * x * (double)r + (double)e * x + bump;
}

int main(void) {
    /* Points away from the jumps of lround (3x on a half-integer) and ilogb (powers of 2). */
    double xs[] = {0.7, 1.3, -0.45, 2.9, -3.1};
    for (int k = 0; k < 5; k++) {
        double x = xs[k];
        double d = __enzyme_autodiff((void *)f, x);
        check_close("df/dx", d, FD1(f, x), FD_RTOL, FD_ATOL);
        check_close("df/dx exact", d, 2 * x * lround(3 * x) + ilogb(x), EXACT_RTOL, EXACT_ATOL);
    }
    return zyg_report();
}
