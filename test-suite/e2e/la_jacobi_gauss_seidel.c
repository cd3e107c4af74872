// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Stationary iterations for A x = b with a diagonally dominant A: Jacobi sweeps (new
// iterate into a scratch vector, copied back) and Gauss-Seidel sweeps (in place, each
// update reads the entries already updated in this sweep); gradients w.r.t. A and b.
#include "zyg_check.h"

enum { N = 5 };

double jacobi(const double *A, const double *b, int sweeps) {
    double x[N] = {0}, xn[N];
    for (int s = 0; s < sweeps; s++) {
        for (int i = 0; i < N; i++) {
            double r = b[i];
            for (int j = 0; j < N; j++)
                if (j != i)
                    r -= A[i * N + j] * x[j];
            xn[i] = r / A[i * N + i];
        }
        for (int i = 0; i < N; i++)
            x[i] = xn[i];
    }
    double l = 0.0;
    for (int i = 0; i < N; i++)
        l += (i + 1) * x[i] * x[i];
    return l;
}

double gauss_seidel(const double *A, const double *b, int sweeps) {
    double x[N] = {0};
    for (int s = 0; s < sweeps; s++)
        for (int i = 0; i < N; i++) {
            double r = b[i];
            for (int j = 0; j < i; j++)
                r -= A[i * N + j] * x[j];
            for (int j = i + 1; j < N; j++)
                r -= A[i * N + j] * x[j];
            x[i] = r / A[i * N + i];
        }
    double l = 0.0;
    for (int i = 0; i < N; i++)
        l += (i + 1) * x[i] * x[i];
    return l;
}

static double Ag[N * N], bg[N];
static double jac_A(const double *A) { return jacobi(A, bg, 8); }
static double jac_b(const double *b) { return jacobi(Ag, b, 8); }
static double gs_A(const double *A) { return gauss_seidel(A, bg, 6); }
static double gs_b(const double *b) { return gauss_seidel(Ag, b, 6); }

static double fd(double (*g)(const double *), const double *x, int n, int k) {
    double a[64], b[64], h = ZYG_STEP(x[k]);
    for (int i = 0; i < n; i++) a[i] = b[i] = x[i];
    a[k] += h;
    b[k] -= h;
    return (g(a) - g(b)) / (2 * h);
}

int main(void) {
    for (int q = 0; q < 2; q++) {
        for (int i = 0; i < N; i++)
            for (int j = 0; j < N; j++)
                Ag[i * N + j] = i == j ? 4.0 + 0.3 * i : 0.6 * sin(1.3 * i + 2.1 * j + q);
        for (int i = 0; i < N; i++) bg[i] = 1.0 + 0.5 * cos(1.7 * i - q);
        double dA[N * N] = {0}, db[N] = {0}, dA2[N * N] = {0}, db2[N] = {0};
        __enzyme_autodiff((void *)jacobi, enzyme_dup, Ag, dA, enzyme_dup, bg, db, enzyme_const, 8);
        __enzyme_autodiff((void *)gauss_seidel, enzyme_dup, Ag, dA2, enzyme_dup, bg, db2, enzyme_const, 6);
        for (int k = 0; k < N * N; k++) {
            check_close("jacobi dA", dA[k], fd(jac_A, Ag, N * N, k), FD_RTOL, FD_ATOL);
            check_close("gauss-seidel dA", dA2[k], fd(gs_A, Ag, N * N, k), FD_RTOL, FD_ATOL);
        }
        for (int k = 0; k < N; k++) {
            check_close("jacobi db", db[k], fd(jac_b, bg, N, k), FD_RTOL, FD_ATOL);
            check_close("gauss-seidel db", db2[k], fd(gs_b, bg, N, k), FD_RTOL, FD_ATOL);
        }
    }
    return zyg_report();
}
