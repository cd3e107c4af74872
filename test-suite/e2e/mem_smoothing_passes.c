// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Repeated smoothing passes over one stack buffer (a runtime number of passes, each a
// Gauss-Seidel style in-place stencil plus a nonlinear update), then a data misfit: the
// same memory is overwritten once per pass, so the tape holds passes x n old values.
#include "zyg_check.h"

enum { N = 8 };

double smooth_loss(const double *u0, const double *target, double kappa, int passes) {
    double u[N];
    for (int i = 0; i < N; i++)
        u[i] = u0[i];
    for (int p = 0; p < passes; p++) {
        for (int i = 1; i + 1 < N; i++)
            u[i] = 0.25 * u[i - 1] + 0.5 * u[i] + 0.25 * u[i + 1];
        for (int i = 0; i < N; i++)
            u[i] += kappa * sin(u[i]);
    }
    double s = 0.0;
    for (int i = 0; i < N; i++)
        s += (u[i] - target[i]) * (u[i] - target[i]);
    return s;
}

static const double target[N] = {0.1, 0.3, -0.2, 0.5, 0.0, -0.4, 0.2, 0.6};
static double kappa_g = 0.15;
static double f_u(const double *u) { return smooth_loss(u, target, kappa_g, 5); }
static double f_kappa(double k) {
    double u[N] = {0.9, -0.3, 0.4, 1.2, -0.8, 0.1, 0.7, -0.5};
    return smooth_loss(u, target, k, 5);
}

static double fd(double (*g)(const double *), const double *x, int n, int k) {
    double a[64], b[64], h = ZYG_STEP(x[k]);
    for (int i = 0; i < n; i++) a[i] = b[i] = x[i];
    a[k] += h;
    b[k] -= h;
    return (g(a) - g(b)) / (2 * h);
}

int main(void) {
    double pts[2][N] = {{0.9, -0.3, 0.4, 1.2, -0.8, 0.1, 0.7, -0.5}, {-0.2, 0.6, 1.4, -1.0, 0.3, 0.8, -0.7, 0.05}};
    for (int p = 0; p < 2; p++) {
        double u[N], du[N] = {0};
        for (int i = 0; i < N; i++) u[i] = pts[p][i];
        double dk = __enzyme_autodiff((void *)smooth_loss, enzyme_dup, u, du, enzyme_const, target, kappa_g,
                                      enzyme_const, 5);
        for (int k = 0; k < N; k++)
            check_close("du0", du[k], fd(f_u, pts[p], N, k), FD_RTOL, FD_ATOL);
        if (p == 0)
            check_close("dkappa", dk, FD1(f_kappa, kappa_g), FD_RTOL, FD_ATOL);
    }
    return zyg_report();
}
