// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// RUN: %grad-run -O3 %s %t.o3 %march-v3 | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// A triple product S = P^T M P (a congruence transform, 4x4 M and 4x2 P, two products into
// temporaries through one helper called twice with different operands) and a quadratic
// form v^T S v: gradients w.r.t. M, P and v.
#include "zyg_check.h"

enum { N = 4, K = 2 };

/* C (m x p) = op(A) B with op(A) = A (m x k) or A^T (A is k x m) */
__attribute__((noinline)) static void mul(const double *A, int transA, const double *B, double *C, int m, int k, int p) {
    for (int i = 0; i < m; i++)
        for (int j = 0; j < p; j++) {
            double s = 0.0;
            for (int l = 0; l < k; l++)
                s += (transA ? A[l * m + i] : A[i * k + l]) * B[l * p + j];
            C[i * p + j] = s;
        }
}

double congruence(const double *M, const double *P, const double *v) {
    double MP[N * K], S[K * K];
    mul(M, 0, P, MP, N, N, K);
    mul(P, 1, MP, S, K, N, K);
    double q = 0.0;
    for (int i = 0; i < K; i++)
        for (int j = 0; j < K; j++)
            q += v[i] * S[i * K + j] * v[j];
    return q + 0.1 * S[0] * S[3];
}

/* z = (M[16], P[8], v[2]) copied into separate arrays */
static double flat(const double *z) {
    double M[N * N], P[N * K], v[K];
    for (int i = 0; i < N * N; i++) M[i] = z[i];
    for (int i = 0; i < N * K; i++) P[i] = z[N * N + i];
    for (int i = 0; i < K; i++) v[i] = z[N * N + N * K + i];
    return congruence(M, P, v);
}

static double fd(double (*g)(const double *), const double *x, int n, int k) {
    double a[64], b[64], h = ZYG_STEP(x[k]);
    for (int i = 0; i < n; i++) a[i] = b[i] = x[i];
    a[k] += h;
    b[k] -= h;
    return (g(a) - g(b)) / (2 * h);
}

int main(void) {
    enum { T = N * N + N * K + K };
    for (int q = 0; q < 2; q++) {
        double z[T], M[N * N], P[N * K], v[K], dM[N * N] = {0}, dP[N * K] = {0}, dv[K] = {0};
        for (int i = 0; i < T; i++) z[i] = cos(1.7 * i + q) * (1.0 + 0.1 * q);
        for (int i = 0; i < N * N; i++) M[i] = z[i];
        for (int i = 0; i < N * K; i++) P[i] = z[N * N + i];
        for (int i = 0; i < K; i++) v[i] = z[N * N + N * K + i];
        __enzyme_autodiff((void *)congruence, enzyme_dup, M, dM, enzyme_dup, P, dP, enzyme_dup, v, dv);
        for (int k = 0; k < N * N; k++) check_close("dM", dM[k], fd(flat, z, T, k), FD_RTOL, FD_ATOL);
        for (int k = 0; k < N * K; k++) check_close("dP", dP[k], fd(flat, z, T, N * N + k), FD_RTOL, FD_ATOL);
        for (int k = 0; k < K; k++) check_close("dv", dv[k], fd(flat, z, T, N * N + N * K + k), FD_RTOL, FD_ATOL);
    }
    return zyg_report();
}
