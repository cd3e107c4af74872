// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t.fast -ffast-math | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Cholesky factorisation A = L L^T (lower triangle of A read, L in a local array) and a
// Gaussian-process style objective through it: log det A = 2 sum log L_ii plus b^T A^-1 b
// by two triangular solves. Against finite differences, and the log-det part against the
// closed form d logdet / dA = A^-1 (symmetrised: 2 (A^-1)_ij below the diagonal).
#include "zyg_check.h"

enum { N = 4 };

__attribute__((noinline)) static void cholesky(const double *A, double *L) {
    for (int j = 0; j < N; j++) {
        double d = A[j * N + j];
        for (int k = 0; k < j; k++)
            d -= L[j * N + k] * L[j * N + k];
        L[j * N + j] = sqrt(d);
        for (int i = j + 1; i < N; i++) {
            double s = A[i * N + j];
            for (int k = 0; k < j; k++)
                s -= L[i * N + k] * L[j * N + k];
            L[i * N + j] = s / L[j * N + j];
        }
        for (int i = 0; i < j; i++)
            L[i * N + j] = 0.0;
    }
}

double logdet(const double *A) {
    double L[N * N];
    cholesky(A, L);
    double s = 0.0;
    for (int i = 0; i < N; i++)
        s += 2.0 * log(L[i * N + i]);
    return s;
}

double gp_objective(const double *A, const double *b) {
    double L[N * N], y[N];
    cholesky(A, L);
    for (int i = 0; i < N; i++) { /* L y = b */
        double s = b[i];
        for (int k = 0; k < i; k++)
            s -= L[i * N + k] * y[k];
        y[i] = s / L[i * N + i];
    }
    double quad = 0.0; /* b^T A^-1 b = |y|^2 */
    for (int i = 0; i < N; i++)
        quad += y[i] * y[i];
    double ld = 0.0;
    for (int i = 0; i < N; i++)
        ld += 2.0 * log(L[i * N + i]);
    return 0.5 * quad + 0.5 * ld;
}

static double bg[N];
static double gp_A(const double *A) { return gp_objective(A, bg); }

static double fd(double (*g)(const double *), const double *x, int n, int k) {
    double a[64], b[64], h = ZYG_STEP(x[k]);
    for (int i = 0; i < n; i++) a[i] = b[i] = x[i];
    a[k] += h;
    b[k] -= h;
    return (g(a) - g(b)) / (2 * h);
}

/* inverse of the SPD matrix A by Gauss-Jordan (for the closed form) */
static void invert(const double *A, double *inv) {
    double w[N][2 * N];
    for (int i = 0; i < N; i++)
        for (int j = 0; j < 2 * N; j++) w[i][j] = j < N ? A[i * N + j] : (j - N == i);
    for (int c = 0; c < N; c++) {
        double p = w[c][c];
        for (int j = 0; j < 2 * N; j++) w[c][j] /= p;
        for (int r = 0; r < N; r++)
            if (r != c) {
                double f = w[r][c];
                for (int j = 0; j < 2 * N; j++) w[r][j] -= f * w[c][j];
            }
    }
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) inv[i * N + j] = w[i][N + j];
}

int main(void) {
    for (int q = 0; q < 2; q++) {
        double B[N * N], A[N * N], inv[N * N];
        for (int i = 0; i < N * N; i++) B[i] = sin(1.3 * i + q);
        for (int i = 0; i < N; i++)
            for (int j = 0; j < N; j++) {
                double s = i == j ? 0.5 : 0.0;
                for (int k = 0; k < N; k++) s += B[i * N + k] * B[j * N + k];
                A[i * N + j] = s;
            }
        for (int i = 0; i < N; i++) bg[i] = cos(2.0 * i - q);
        double dA[N * N] = {0}, dA2[N * N] = {0}, db[N] = {0};
        __enzyme_autodiff((void *)logdet, enzyme_dup, A, dA);
        invert(A, inv);
        for (int i = 0; i < N; i++)
            for (int j = 0; j < N; j++) {
                double want = j < i ? 2 * inv[i * N + j] : (j == i ? inv[i * N + i] : 0.0);
                check_close("dlogdet closed form", dA[i * N + j], want, 1e-9, 1e-12);
                check_close("dlogdet", dA[i * N + j], fd(logdet, A, N * N, i * N + j), FD_RTOL, FD_ATOL);
            }
        __enzyme_autodiff((void *)gp_objective, enzyme_dup, A, dA2, enzyme_dup, bg, db);
        for (int k = 0; k < N * N; k++)
            check_close("dgp/dA", dA2[k], fd(gp_A, A, N * N, k), FD_RTOL, FD_ATOL);
        for (int k = 0; k < N; k++) { /* d/db = A^-1 b */
            double want = 0.0;
            for (int j = 0; j < N; j++) want += inv[k * N + j] * bg[j];
            check_close("dgp/db", db[k], want, 1e-9, 1e-12);
        }
    }
    return zyg_report();
}
