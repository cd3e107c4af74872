// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// RUN: %grad-run -O3 %s %t.o3 %march-v3 | FileCheck %s
// RUN: %grad-run -O2 %s %t.fast -ffast-math | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Loops over arrays that clang vectorises at -O2/-O3 (<N x double> loads, arithmetic,
// splats by insertelement + shufflevector, and with -ffast-math llvm.vector.reduce.fadd and
// vectorised llvm.sqrt/llvm.exp): the gradient matches at every level.
#include "zyg_check.h"

double norm_like(const double *x, const double *w, int n) {
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += w[i] * x[i] * x[i] + sqrt(1.0 + x[i] * x[i]);
    return s;
}

void axpy_exp(double a, const double *x, double *y, int n) {
    for (int i = 0; i < n; i++)
        y[i] = a * exp(x[i]) + y[i] * y[i];
}

void __enzyme_autodiffv(void *, ...);

int main(void) {
    enum { N = 37 };
    double x[N], w[N], dx[N] = {0}, dw[N] = {0};
    for (int i = 0; i < N; i++) {
        x[i] = 0.1 * i - 1.7;
        w[i] = 0.05 * (i % 7) + 0.2;
    }
    __enzyme_autodiff((void *)norm_like, x, dx, w, dw, N);
    for (int i = 0; i < N; i++) {
        check_close("dx", dx[i], 2 * w[i] * x[i] + x[i] / sqrt(1 + x[i] * x[i]), 1e-12, 1e-14);
        check_close("dw", dw[i], x[i] * x[i], 1e-13, 1e-15);
    }
    double y[N], y0[N], dy[N], dx2[N] = {0};
    for (int i = 0; i < N; i++) {
        y[i] = y0[i] = 0.3 - 0.02 * i;
        dy[i] = 1.0 + 0.01 * i;
    }
    double seed[N];
    for (int i = 0; i < N; i++) seed[i] = dy[i];
    double a = 0.75;
    __enzyme_autodiffv((void *)axpy_exp, enzyme_const, a, x, dx2, y, dy, N);
    for (int i = 0; i < N; i++) {
        check_close("dx (axpy)", dx2[i], seed[i] * a * exp(x[i]), 1e-13, 1e-15);
        check_close("dy (axpy)", dy[i], seed[i] * 2 * y0[i], 1e-13, 1e-15);
    }
    return zyg_report();
}
