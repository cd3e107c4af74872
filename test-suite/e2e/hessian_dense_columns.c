// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// RUN: %grad-run -O3 %s %t.native -march=native | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// A dense Hessian assembled column by column from Hessian-vector products with the unit
// vectors (forward over reverse), for a function coupling every pair of inputs: f(x) =
// log(1 + sum_i exp(x_i x_{i+1})) + sum_{i<j} sin(x_i - x_j) / (1 + j) + |x|^4 / 8.
// Checked at three points: the assembled matrix is symmetric, each column matches central
// differences of the gradient along e_j, and H v for a mixed v equals the matrix times v.
#include "zyg_check.h"

#define N 5

static double f(const double *x, int n) {
    double e = 0, pair = 0, r2 = 0;
    for (int i = 0; i + 1 < n; i++) e += exp(x[i] * x[i + 1]);
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) pair += sin(x[i] - x[j]) / (1.0 + j);
    for (int i = 0; i < n; i++) r2 += x[i] * x[i];
    return log(1 + e) + pair + r2 * r2 / 8;
}

static void grad(const double *x, double *dx, int n) { __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, n); }

static void hvp(const double *x, const double *v, double *hv) {
    double dx[N] = {0};
    for (int i = 0; i < N; i++) hv[i] = 0;
    __enzyme_fwddiff((void *)grad, enzyme_dup, x, v, enzyme_dup, dx, hv, enzyme_const, N);
}

int main(void) {
    double pts[3][N] = {{0.3, -0.2, 0.5, 0.1, -0.4}, {1.0, 0.8, -0.6, 1.2, 0.4}, {-1.5, 0.25, 0.9, -0.7, 1.1}};
    for (int p = 0; p < 3; p++) {
        const double *x = pts[p];
        double H[N][N];
        for (int j = 0; j < N; j++) {
            double e[N] = {0}, col[N];
            e[j] = 1;
            hvp(x, e, col);
            double h = 1e-6, xp[N], xm[N], gp[N] = {0}, gm[N] = {0};
            for (int i = 0; i < N; i++) {
                xp[i] = x[i] + h * e[i];
                xm[i] = x[i] - h * e[i];
            }
            grad(xp, gp, N);
            grad(xm, gm, N);
            for (int i = 0; i < N; i++) {
                H[i][j] = col[i];
                check_close("column vs FD of the gradient", col[i], (gp[i] - gm[i]) / (2 * h), FD_RTOL, FD_ATOL);
            }
        }
        for (int i = 0; i < N; i++)
            for (int j = 0; j < i; j++) check_close("symmetric", H[i][j], H[j][i], 1e-12, 1e-13);
        double v[N] = {0.4, -0.9, 0.3, 0.7, -0.2}, hv[N];
        hvp(x, v, hv);
        for (int i = 0; i < N; i++) {
            double want = 0;
            for (int j = 0; j < N; j++) want += H[i][j] * v[j];
            check_close("H v vs assembled H times v", hv[i], want, 1e-12, 1e-13);
        }
    }
    return zyg_report();
}
