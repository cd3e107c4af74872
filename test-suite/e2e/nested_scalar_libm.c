// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Second derivatives of libm functions of one variable: forward over forward, reverse over
// forward, and (except sqrt, see the report) forward over reverse and reverse over reverse.
// Each is checked against the closed-form second derivative and against central differences
// of the first derivative, at three points.
#include "zyg_check.h"

static double g_sin(double x) { return sin(x); }
static double g_exp(double x) { return exp(0.7 * x); }
static double g_log(double x) { return log(x); }
static double g_pow(double x) { return pow(x, 2.5); }
static double g_atan(double x) { return atan(x); }
static double g_sqrt(double x) { return sqrt(x); }
static double g_tanh(double x) { return tanh(x); }

static double dd_sin(double x) { return -sin(x); }
static double dd_exp(double x) { return 0.49 * exp(0.7 * x); }
static double dd_log(double x) { return -1 / (x * x); }
static double dd_pow(double x) { return 2.5 * 1.5 * pow(x, 0.5); }
static double dd_atan(double x) { return -2 * x / ((1 + x * x) * (1 + x * x)); }
static double dd_sqrt(double x) { return -0.25 * pow(x, -1.5); }
static double dd_tanh(double x) { double t = tanh(x); return -2 * t * (1 - t * t); }

/* first derivatives, forward and reverse, and the four second derivatives */
#define FIRST(g)                                                                       \
    static double fwd_##g(double x) { return __enzyme_fwddiff((void *)g_##g, x, 1.0); } \
    static double rev_##g(double x) { return __enzyme_autodiff((void *)g_##g, x); }
FIRST(sin) FIRST(exp) FIRST(log) FIRST(pow) FIRST(atan) FIRST(sqrt) FIRST(tanh)

#define CHECK_BOTH(label, got, g, x)                                                   \
    do {                                                                               \
        check_close(label " vs closed form", got, dd_##g(x), 1e-12, 1e-14);             \
        check_close(label " vs FD of f'", got, FD1(fwd_##g, x), FD_RTOL, FD_ATOL);      \
    } while (0)

#define SECOND_FWD(g, x)                                                                            \
    do {                                                                                            \
        CHECK_BOTH(#g " fwd over fwd", __enzyme_fwddiff((void *)fwd_##g, x, 1.0), g, x);              \
        CHECK_BOTH(#g " rev over fwd", __enzyme_autodiff((void *)fwd_##g, x), g, x);                  \
    } while (0)
#define SECOND_ALL(g, x)                                                                            \
    do {                                                                                            \
        SECOND_FWD(g, x);                                                                           \
        CHECK_BOTH(#g " fwd over rev", __enzyme_fwddiff((void *)rev_##g, x, 1.0), g, x);              \
        CHECK_BOTH(#g " rev over rev", __enzyme_autodiff((void *)rev_##g, x), g, x);                  \
    } while (0)

int main(void) {
    double pts[3] = {0.4, 1.3, 2.7};
    for (int p = 0; p < 3; p++) {
        double x = pts[p];
        SECOND_ALL(sin, x);
        SECOND_ALL(exp, x);
        SECOND_ALL(log, x);
        SECOND_ALL(pow, x);
        SECOND_ALL(atan, x);
        SECOND_FWD(sqrt, x);
        SECOND_ALL(tanh, x);
        (void)rev_sqrt;
    }
    return zyg_report();
}
