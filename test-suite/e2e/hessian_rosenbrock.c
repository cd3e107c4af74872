// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// RUN: %grad-run -O3 %s %t.native -march=native | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Hessian-vector products of the n-dimensional Rosenbrock function (a loop over i), forward
// mode over zyg's reverse-mode gradient. Each H v is checked against central differences of
// the gradient along v (the gradient from the same zyg request) and against the closed-form
// tridiagonal Hessian, at three points and three directions.
#include <string.h>
#include "zyg_check.h"

#define N 7

static double rosen(const double *x, int n) {
    double s = 0;
    for (int i = 0; i + 1 < n; i++) {
        double a = x[i + 1] - x[i] * x[i], b = 1 - x[i];
        s += 100 * a * a + b * b;
    }
    return s;
}

static void grad(const double *x, double *dx, int n) {
    __enzyme_autodiff((void *)rosen, enzyme_dup, x, dx, enzyme_const, n);
}

/* H v, forward over reverse; dx and hv must start at zero */
static void hvp(const double *x, const double *v, double *hv, int n) {
    double dx[N] = {0};
    memset(hv, 0, n * sizeof(double));
    __enzyme_fwddiff((void *)grad, enzyme_dup, x, v, enzyme_dup, dx, hv, enzyme_const, n);
}

/* the closed-form Hessian times v */
static void hvp_exact(const double *x, const double *v, double *hv, int n) {
    for (int i = 0; i < n; i++) hv[i] = 0;
    for (int i = 0; i + 1 < n; i++) {
        double a = x[i + 1] - x[i] * x[i];
        double hii = 1200 * x[i] * x[i] - 400 * x[i + 1] + 2, hij = -400 * x[i];
        hv[i] += hii * v[i] + hij * v[i + 1];
        hv[i + 1] += hij * v[i] + 200 * v[i + 1];
        (void)a;
    }
}

int main(void) {
    double pts[3][N] = {{-1.2, 1.0, -0.5, 0.3, 0.8, 1.1, -0.7},
                        {1, 1, 1, 1, 1, 1, 1},
                        {0.2, -0.4, 0.6, 0.9, -1.3, 0.5, 0.1}};
    double dirs[3][N] = {{1, 0, 0, 0, 0, 0, 0},
                         {0, 0, 0, 1, 0, 0, 0},
                         {0.3, -0.7, 0.2, 0.5, -0.1, 0.9, -0.4}};
    for (int p = 0; p < 3; p++)
        for (int d = 0; d < 3; d++) {
            const double *x = pts[p], *v = dirs[d];
            double hv[N], want[N], gp[N] = {0}, gm[N] = {0}, xp[N], xm[N], h = 1e-6;
            hvp(x, v, hv, N);
            hvp_exact(x, v, want, N);
            for (int i = 0; i < N; i++) {
                xp[i] = x[i] + h * v[i];
                xm[i] = x[i] - h * v[i];
            }
            grad(xp, gp, N);
            grad(xm, gm, N);
            for (int i = 0; i < N; i++) {
                check_close("Hv vs FD of the gradient", hv[i], (gp[i] - gm[i]) / (2 * h), FD_RTOL, 1e-5);
                check_close("Hv vs closed form", hv[i], want[i], 1e-12, 1e-10);
            }
        }
    return zyg_report();
}
