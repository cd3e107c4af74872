// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Third derivatives by three nested requests, every mix of modes with reverse inside:
// reverse over reverse over reverse, forward over reverse over reverse, reverse over forward
// over reverse, forward over forward over reverse. Against the closed forms of
// f = log(1 + x^2) y + sin(x y): f_xxx and f_xxy. (A loop-free inner: three reverse sweeps
// over a loop's tape stacks are refused, errors/nested_third_reverse_over_stacks.c.)
#include "zyg_check.h"

static double f(double x, double y) { return log(1 + x * x) * y + sin(x * y); }
static double fx(double x, double y) { return __enzyme_autodiff((void *)f, x, enzyme_const, y); }
static double fxx_rr(double x, double y) { return __enzyme_autodiff((void *)fx, x, enzyme_const, y); }
static double fxx_fr(double x, double y) { return __enzyme_fwddiff((void *)fx, x, 1.0, y, 0.0); }

int main(void) {
    double pts[4][2] = {{0.7, 1.3}, {-0.4, 0.6}, {1.5, -0.8}, {0.0, 2.0}};
    for (int p = 0; p < 4; p++) {
        double x = pts[p][0], y = pts[p][1], u = 1 + x * x;
        /* d3/dx3 log(1 + x^2) = (4x^3 - 12x) / u^3; d3/dx3 sin(xy) = -y^3 cos(xy) */
        double fxxx = (4 * x * x * x - 12 * x) / (u * u * u) * y - y * y * y * cos(x * y);
        /* d/dy f_xx = (2 - 2x^2) / u^2 + d/dy (-y^2 sin(xy)) = ... - 2y sin(xy) - x y^2 cos(xy) */
        double fxxy = (2 - 2 * x * x) / (u * u) - 2 * y * sin(x * y) - x * y * y * cos(x * y);
        check_close("fxxx rev/rev/rev", __enzyme_autodiff((void *)fxx_rr, x, enzyme_const, y), fxxx, 1e-12, 1e-13);
        check_close("fxxy rev/rev/rev", __enzyme_autodiff((void *)fxx_rr, enzyme_const, x, y), fxxy, 1e-12, 1e-13);
        check_close("fxxx fwd/rev/rev", __enzyme_fwddiff((void *)fxx_rr, x, 1.0, y, 0.0), fxxx, 1e-12, 1e-13);
        check_close("fxxy fwd/rev/rev", __enzyme_fwddiff((void *)fxx_rr, x, 0.0, y, 1.0), fxxy, 1e-12, 1e-13);
        check_close("fxxx rev/fwd/rev", __enzyme_autodiff((void *)fxx_fr, x, enzyme_const, y), fxxx, 1e-12, 1e-13);
        check_close("fxxy fwd/fwd/rev", __enzyme_fwddiff((void *)fxx_fr, x, 0.0, y, 1.0), fxxy, 1e-12, 1e-13);
    }
    return zyg_report();
}
