// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Third derivatives of f(x) = exp(0.5 x) sin(x) + log(1 + x^2), three requests deep: forward over forward over
// reverse, forward over forward over forward and reverse over forward over forward (a third
// derivative over reverse over reverse is refused today, reported with a reproducer). Checked against the closed-form f''' and against central
// differences of f'' (itself from forward over forward), at three points.
#include "zyg_check.h"

static double f(double x) { return exp(0.5 * x) * sin(x) + log(1 + x * x); }

static double d1_rev(double x) { return __enzyme_autodiff((void *)f, x); }
static double d1_fwd(double x) { return __enzyme_fwddiff((void *)f, x, 1.0); }
static double d2_fr(double x) { return __enzyme_fwddiff((void *)d1_rev, x, 1.0); }
static double d2_ff(double x) { return __enzyme_fwddiff((void *)d1_fwd, x, 1.0); }

static double d3_exact(double x) {
    /* (e^{x/2} sin x)''' = e^{x/2} ((1/8 - 3/2) sin x + (3/4 - 1) cos x) */
    double a = exp(0.5 * x) * ((0.125 - 1.5) * sin(x) + (0.75 - 1) * cos(x));
    /* (log(1 + x^2))''' = (4 x^3 - 12 x) / (1 + x^2)^3 */
    double u = 1 + x * x;
    return a + (4 * x * x * x - 12 * x) / (u * u * u);
}

int main(void) {
    double pts[3] = {-0.7, 0.4, 1.9};
    for (int p = 0; p < 3; p++) {
        double x = pts[p], want = d3_exact(x), fd = FD1(d2_ff, x);
        double got[3] = {__enzyme_fwddiff((void *)d2_fr, x, 1.0), __enzyme_fwddiff((void *)d2_ff, x, 1.0),
                         __enzyme_autodiff((void *)d2_ff, x)};
        const char *labels[3] = {"fwd over fwd over rev", "fwd^3", "rev over fwd over fwd"};
        for (int k = 0; k < 3; k++) {
            check_close(labels[k], got[k], want, 1e-11, 1e-12);
            check_close(labels[k], got[k], fd, FD_RTOL, FD_ATOL);
        }
    }
    return zyg_report();
}
