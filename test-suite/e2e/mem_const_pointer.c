// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// enzyme_const on pointer arguments: a least-squares loss over a data matrix and targets
// passed const (no shadow), with parameters dup; then the same function with the data dup
// and the parameters const, so the other half of the gradient is computed.
#include "zyg_check.h"

enum { M = 6, D = 3 };

double lsq(const double *theta, const double *X, const double *y, int m) {
    double s = 0.0;
    for (int i = 0; i < m; i++) {
        double p = theta[D];
        for (int j = 0; j < D; j++)
            p += X[i * D + j] * theta[j];
        double r = tanh(p) - y[i];
        s += r * r;
    }
    return s / m + 0.01 * (theta[0] * theta[0] + theta[1] * theta[1]);
}

static double Xg[M * D] = {0.5, -1.0, 0.3, 1.2, 0.4, -0.7, -0.3, 0.8, 1.1, 0.9, -0.2, 0.5, -1.4, 0.6, 0.2, 0.1, 1.3, -0.9};
static double yg[M] = {0.2, 0.7, -0.4, 0.5, -0.8, 0.3};
static double thg[D + 1] = {0.4, -0.6, 0.9, 0.1};
static double lsq_theta(const double *th) { return lsq(th, Xg, yg, M); }
static double lsq_X(const double *X) { return lsq(thg, X, yg, M); }

static double fd(double (*g)(const double *), const double *x, int n, int k) {
    double a[64], b[64], h = ZYG_STEP(x[k]);
    for (int i = 0; i < n; i++) a[i] = b[i] = x[i];
    a[k] += h;
    b[k] -= h;
    return (g(a) - g(b)) / (2 * h);
}

int main(void) {
    double ths[2][D + 1] = {{0.4, -0.6, 0.9, 0.1}, {-1.1, 0.3, 0.5, -0.4}};
    for (int q = 0; q < 2; q++) {
        double dth[D + 1] = {0};
        __enzyme_autodiff((void *)lsq, enzyme_dup, ths[q], dth, enzyme_const, Xg, enzyme_const, yg, enzyme_const, M);
        for (int k = 0; k < D + 1; k++)
            check_close("dtheta", dth[k], fd(lsq_theta, ths[q], D + 1, k), FD_RTOL, FD_ATOL);
    }
    double dX[M * D] = {0};
    __enzyme_autodiff((void *)lsq, enzyme_const, thg, enzyme_dup, Xg, dX, enzyme_const, yg, enzyme_const, M);
    for (int k = 0; k < M * D; k++)
        check_close("dX", dX[k], fd(lsq_X, Xg, M * D, k), FD_RTOL, FD_ATOL);
    return zyg_report();
}
