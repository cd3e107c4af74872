// Inactive functions declared with clang annotations, as `__attribute__((annotate(...)))`
// writes them and Enzyme's clang plugin emits them for `__attribute__((enzyme_inactive))`:
// `enzyme_inactivefn`, `enzyme_inactivenoblockfn` and `enzyme_inactive`. Each call's
// result is a constant to zyg; checked against finite differences of the model with those
// results held fixed.
// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
#include "zyg_check.h"

#define KEEP __attribute__((noinline, optnone))
KEEP __attribute__((annotate("enzyme_inactivefn"))) double step_size(double x) { return 0.1 * x * x; }
KEEP __attribute__((annotate("enzyme_inactivenoblockfn"))) double damping(double x) { return exp(-x); }
KEEP __attribute__((annotate("enzyme_inactive"))) double weight(double x) { return 1 + x; }

double model(double x) { return step_size(x) * x + damping(x) * sin(x) + weight(x) * x * x; }
static double s0, d0, w0;
static double model_fixed(double x) { return s0 * x + d0 * sin(x) + w0 * x * x; }

int main(void) {
    for (int k = 0; k < 3; k++) {
        double x = 0.4 + 0.5 * k;
        double d = __enzyme_autodiff((void *)model, x);
        s0 = step_size(x), d0 = damping(x), w0 = weight(x);
        check_close("d model / dx, three inactive calls", d, FD1(model_fixed, x), FD_RTOL, FD_ATOL);
        check_close("not the whole derivative", fabs(d - FD1(model, x)) > 1e-3, 1, 0, 0);
    }
    return zyg_report();
}
