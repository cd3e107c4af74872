// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// A function writing its result through a `dup` pointer: the caller seeds the output's
// shadow; the input's shadow receives the gradient, and the output's is consumed (zeroed).
#include "zyg_check.h"

void __enzyme_autodiffv(void *, ...);

void transform(const double *in, double *out, int n, double a) {
    for (int i = 0; i < n; i++)
        out[i] = a * in[i] * in[i] + (i + 1 < n ? in[i + 1] : 0.0);
}

int main(void) {
    double in[4] = {1.0, -2.0, 0.5, 3.0}, din[4] = {0}, out[4], dout[4] = {1.0, 0.5, -1.0, 2.0};
    double seed[4] = {1.0, 0.5, -1.0, 2.0};
    __enzyme_autodiffv((void *)transform, in, din, out, dout, 4, enzyme_const, 1.5);
    for (int i = 0; i < 4; i++) {
        check_close("out = primal", out[i], 1.5 * in[i] * in[i] + (i + 1 < 4 ? in[i + 1] : 0.0), 1e-15, 0);
        double want = seed[i] * 3.0 * in[i] + (i > 0 ? seed[i - 1] : 0.0);
        check_close("din", din[i], want, 1e-14, 1e-15);
        check_close("dout consumed", dout[i], 0.0, 0, 0);
    }
    return zyg_report();
}
