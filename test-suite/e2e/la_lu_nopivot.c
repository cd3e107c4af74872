// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// RUN: %grad-run -O3 %s %t.o3 %march-v3 | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// LU factorisation without pivoting (Doolittle), done in place on the caller's dup matrix
// so that L\U overwrites A, then log|det| and a solve A x = b through the factors; the
// gradient is w.r.t. A on entry, and A holds the factors afterwards.
#include "zyg_check.h"

enum { N = 4 };

double lu_loss(double *A, const double *b) {
    for (int k = 0; k < N; k++)
        for (int i = k + 1; i < N; i++) {
            A[i * N + k] /= A[k * N + k];
            for (int j = k + 1; j < N; j++)
                A[i * N + j] -= A[i * N + k] * A[k * N + j];
        }
    double x[N];
    for (int i = 0; i < N; i++) { /* L y = b, unit diagonal */
        x[i] = b[i];
        for (int j = 0; j < i; j++)
            x[i] -= A[i * N + j] * x[j];
    }
    for (int i = N - 1; i >= 0; i--) { /* U x = y */
        for (int j = i + 1; j < N; j++)
            x[i] -= A[i * N + j] * x[j];
        x[i] /= A[i * N + i];
    }
    double s = 0.0;
    for (int i = 0; i < N; i++)
        s += log(fabs(A[i * N + i])) + x[i] * x[i];
    return s;
}

static double bg[N];
static double lu_A(const double *A0) {
    double A[N * N];
    for (int i = 0; i < N * N; i++) A[i] = A0[i];
    return lu_loss(A, bg);
}
static double Ag[N * N];
static double lu_b(const double *b) {
    double A[N * N];
    for (int i = 0; i < N * N; i++) A[i] = Ag[i];
    return lu_loss(A, b);
}

static double fd(double (*g)(const double *), const double *x, int n, int k) {
    double a[64], b[64], h = ZYG_STEP(x[k]);
    for (int i = 0; i < n; i++) a[i] = b[i] = x[i];
    a[k] += h;
    b[k] -= h;
    return (g(a) - g(b)) / (2 * h);
}

int main(void) {
    for (int q = 0; q < 2; q++) {
        double A[N * N], dA[N * N] = {0}, db[N] = {0};
        for (int i = 0; i < N; i++)
            for (int j = 0; j < N; j++)
                Ag[i * N + j] = (i == j ? 3.0 + 0.5 * i : 0.0) + 0.8 * sin(1.7 * i + 0.9 * j + q);
        for (int i = 0; i < N; i++) bg[i] = 1.0 + cos(2.1 * i + q);
        for (int i = 0; i < N * N; i++) A[i] = Ag[i];
        __enzyme_autodiff((void *)lu_loss, enzyme_dup, A, dA, enzyme_dup, bg, db);
        double F[N * N];
        for (int i = 0; i < N * N; i++) F[i] = Ag[i];
        lu_loss(F, bg);
        for (int k = 0; k < N * N; k++) {
            check_close("A holds L\\U", A[k], F[k], EXACT_RTOL, EXACT_ATOL);
            check_close("dA", dA[k], fd(lu_A, Ag, N * N, k), FD_RTOL, FD_ATOL);
        }
        for (int k = 0; k < N; k++)
            check_close("db", db[k], fd(lu_b, bg, N, k), FD_RTOL, FD_ATOL);
    }
    return zyg_report();
}
