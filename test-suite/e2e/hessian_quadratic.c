// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// RUN: %grad-run -O3 %s %t.native -march=native | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Hessian-vector products of a quadratic form f(x) = x^T A x + b^T x with a non-symmetric A
// (a double loop; A and b are constant arguments), forward over reverse. Its Hessian is
// A + A^T at every point: each H v is checked against (A + A^T) v and against central
// differences of the gradient along v, at three points and three directions.
#include <string.h>
#include "zyg_check.h"

#define N 5

static double quad(const double *x, const double *A, const double *b, int n) {
    double s = 0;
    for (int i = 0; i < n; i++) {
        double row = 0;
        for (int j = 0; j < n; j++) row += A[i * n + j] * x[j];
        s += x[i] * row + b[i] * x[i];
    }
    return s;
}

static void grad(const double *x, double *dx, const double *A, const double *b, int n) {
    __enzyme_autodiff((void *)quad, enzyme_dup, x, dx, enzyme_const, A, enzyme_const, b, enzyme_const, n);
}

int main(void) {
    double A[N * N], b[N];
    for (int i = 0; i < N; i++) {
        b[i] = 0.5 - 0.3 * i;
        for (int j = 0; j < N; j++) A[i * N + j] = sin(1.0 + 3 * i + 7 * j) + (i == j ? 2.0 : 0.0);
    }
    double pts[3][N] = {{0, 0, 0, 0, 0}, {1.5, -2.0, 0.3, 0.7, -1.1}, {10, -3, 4, 0.25, 6}};
    double dirs[3][N] = {{1, 0, 0, 0, 0}, {0, 0, 0, 0, 1}, {0.4, -0.2, 0.9, -0.6, 0.1}};
    for (int p = 0; p < 3; p++)
        for (int d = 0; d < 3; d++) {
            const double *x = pts[p], *v = dirs[d];
            double dx[N] = {0}, hv[N] = {0};
            __enzyme_fwddiff((void *)grad, enzyme_dup, x, v, enzyme_dup, dx, hv, enzyme_const, A, enzyme_const, b,
                             enzyme_const, N);
            double h = 1e-5, xp[N], xm[N], gp[N] = {0}, gm[N] = {0};
            for (int i = 0; i < N; i++) {
                xp[i] = x[i] + h * v[i];
                xm[i] = x[i] - h * v[i];
            }
            grad(xp, gp, A, b, N);
            grad(xm, gm, A, b, N);
            for (int i = 0; i < N; i++) {
                double want = 0;
                for (int j = 0; j < N; j++) want += (A[i * N + j] + A[j * N + i]) * v[j];
                check_close("Hv vs (A + A^T) v", hv[i], want, 1e-12, 1e-13);
                check_close("Hv vs FD of the gradient", hv[i], (gp[i] - gm[i]) / (2 * h), FD_RTOL, FD_ATOL);
                /* the primal gradient written into dx by the same call */
                double g = b[i];
                for (int j = 0; j < N; j++) g += (A[i * N + j] + A[j * N + i]) * x[j];
                check_close("dx is the gradient", dx[i], g, 1e-12, 1e-12);
            }
        }
    return zyg_report();
}
