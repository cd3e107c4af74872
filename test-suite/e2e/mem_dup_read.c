// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// A `dup` array that is only read: the shadow accumulates (+=) the gradient.
#include "zyg_check.h"

double energy(const double *x, int n) {
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += x[i] * x[i] * sin(x[i]) + (i > 0 ? x[i] * x[i - 1] : 0.0);
    return s;
}

int main(void) {
    double x[6] = {0.3, -0.5, 1.2, 0.7, 2.0, -1.1}, dx[6] = {1, 1, 1, 1, 1, 1};
    __enzyme_autodiff((void *)energy, enzyme_dup, x, dx, 6);
    for (int i = 0; i < 6; i++) {
        double want = 2 * x[i] * sin(x[i]) + x[i] * x[i] * cos(x[i]) + (i > 0 ? x[i - 1] : 0) + (i < 5 ? x[i + 1] : 0);
        check_close("dx[i] (accumulated onto 1)", dx[i], 1.0 + want, 1e-13, 1e-14);
    }
    return zyg_report();
}
