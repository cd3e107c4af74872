// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Forward mode where memory with tangents is overwritten: by a constant (the tangent
// becomes 0, not the one passed in), by a product (the product rule), and by a value that
// went through an integer (0). Known derivatives.
#include "zyg_check.h"
static void g(double *x, double k) { x[0] = 3.0; x[1] = x[1] * k; x[2] = (double)(int)x[2]; }
int main(void) {
    double x[3] = {1.5, 2.0, 2.7}, dx[3] = {1.0, 1.0, 1.0};
    __enzyme_fwddiff((void *)g, enzyme_dup, x, dx, 0.5, 0.25);
    check_close("overwritten by a constant", dx[0], 0.0, 0, 0);
    check_close("x1 * k", dx[1], 1.0 * 0.5 + 2.0 * 0.25, 1e-12, 1e-14);
    check_close("truncated", dx[2], 0.0, 0, 0);
    return zyg_report();
}
