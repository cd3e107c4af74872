// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// RUN: %grad-run -O3 %s %t.o3 %march-v3 | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Elementwise maps written back into the dup input, x[i] = f(x[i]), three passes over one
// buffer and then a coupled pass x[i] = g(x[i], x[i+1]): every overwritten value is needed
// by the adjoint and must come from the tape; dx is the gradient w.r.t. x on entry. At -O2
// clang vectorises the coupled pass with <2 x double> loads at &x[i+1] (align 8 only).
#include "zyg_check.h"

double loss(double *x, int n) {
    for (int i = 0; i < n; i++)
        x[i] = sin(x[i]) * x[i];
    for (int i = 0; i < n; i++)
        x[i] = exp(0.3 * x[i]) - x[i];
    for (int i = 0; i < n; i++)
        x[i] *= x[i];
    for (int i = 0; i + 1 < n; i++)
        x[i] = x[i] * x[i + 1] + x[i];
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += x[i] * (1.0 + 0.5 * i);
    return s;
}

enum { N = 6 };
static double loss_copy(const double *x) {
    double y[N];
    for (int i = 0; i < N; i++) y[i] = x[i];
    return loss(y, N);
}

static double fd(double (*g)(const double *), const double *x, int n, int k) {
    double a[64], b[64], h = ZYG_STEP(x[k]);
    for (int i = 0; i < n; i++) a[i] = b[i] = x[i];
    a[k] += h;
    b[k] -= h;
    return (g(a) - g(b)) / (2 * h);
}

int main(void) {
    double pts[2][N] = {{0.5, -0.9, 1.1, 0.3, -0.4, 0.8}, {1.2, 0.2, -1.3, 0.7, 0.05, -0.6}};
    for (int p = 0; p < 2; p++) {
        double x[N], dx[N] = {0};
        for (int i = 0; i < N; i++) x[i] = pts[p][i];
        __enzyme_autodiff((void *)loss, enzyme_dup, x, dx, enzyme_const, N);
        /* the primal ran too: x now holds the updated values */
        double y[N];
        for (int i = 0; i < N; i++) y[i] = pts[p][i];
        loss(y, N);
        for (int i = 0; i < N; i++)
            check_close("x updated", x[i], y[i], EXACT_RTOL, EXACT_ATOL);
        for (int k = 0; k < N; k++)
            check_close("dx", dx[k], fd(loss_copy, pts[p], N, k), FD_RTOL, FD_ATOL);
    }
    return zyg_report();
}
