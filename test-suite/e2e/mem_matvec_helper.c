// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Matrix-vector product through a helper taking pointers: the helper gets its own primal
// and adjoint, with shadows passed along.
#include "zyg_check.h"

__attribute__((noinline)) void matvec(const double *m, const double *v, double *out, int n) {
    for (int i = 0; i < n; i++) {
        double s = 0.0;
        for (int j = 0; j < n; j++)
            s += m[i * n + j] * v[j];
        out[i] = s;
    }
}

double loss(const double *m, const double *v) {
    double out[3];
    matvec(m, v, out, 3);
    double s = 0.0;
    for (int i = 0; i < 3; i++)
        s += tanh(out[i]);
    return s;
}

int main(void) {
    double m[9] = {0.2, -0.1, 0.4, 0.3, 0.5, -0.6, 0.1, 0.9, 0.05}, v[3] = {1.0, -0.5, 0.25};
    double dm[9] = {0}, dv[3] = {0};
    __enzyme_autodiff((void *)loss, m, dm, v, dv);
    double out[3];
    matvec(m, v, out, 3);
    for (int i = 0; i < 3; i++) {
        double t = tanh(out[i]), g = 1 - t * t;
        for (int j = 0; j < 3; j++)
            check_close("dm", dm[i * 3 + j], g * v[j], 1e-13, 1e-15);
    }
    for (int j = 0; j < 3; j++) {
        double want = 0;
        for (int i = 0; i < 3; i++) {
            double t = tanh(out[i]);
            want += (1 - t * t) * m[i * 3 + j];
        }
        check_close("dv", dv[j], want, 1e-13, 1e-15);
    }
    return zyg_report();
}
