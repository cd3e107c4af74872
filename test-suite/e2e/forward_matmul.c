// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// RUN: %grad-run -O3 %s %t.native -march=native | FileCheck %s
// RUN: sed -n '/^define internal.* void @gemm(/,/^}/p' %t.native.O3.ll | grep -q "x double>"
// RUN: %grad-run -O3 %s %t.fast -march=native -ffast-math | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Forward mode through dense linear algebra: y = A x (row-major, dot products: vector
// reductions in the -ffast-math run), C = A B (i-k-j loop order, vectorised along j at -O3
// -march=native; the grep checks it), a transposed product A^T y, and a quadratic form
// x^T (A B) x built from them. A, B and x all carry tangents (`enzyme_dup`); the tangents
// of y, C and the scalar are checked against central differences along the same direction.
#include <string.h>
#include "zyg_check.h"

#define M 7
#define K 9
#define P 8

static void gemv(const double *A, const double *x, double *y, int m, int k) {
    for (int i = 0; i < m; i++) {
        double s = 0;
        for (int j = 0; j < k; j++) s += A[i * k + j] * x[j];
        y[i] = s;
    }
}

__attribute__((noinline)) static void gemm(const double *restrict A, const double *restrict B, double *restrict C, int m, int k, int p) {
    for (int i = 0; i < m; i++) {
        for (int j = 0; j < p; j++) C[i * p + j] = 0;
        for (int l = 0; l < k; l++) {
            double a = A[i * k + l];
            for (int j = 0; j < p; j++) C[i * p + j] += a * B[l * p + j];
        }
    }
}

static void gemv_t(const double *A, const double *y, double *z, int m, int k) {
    for (int j = 0; j < k; j++) z[j] = 0;
    for (int i = 0; i < m; i++)
        for (int j = 0; j < k; j++) z[j] += A[i * k + j] * y[i];
}

/* returns x^T A^T (A x) + sum(C) with C = A B written out, y = A x written out */
static double model(const double *A, const double *B, const double *x, double *C, double *y) {
    double z[K];
    gemm(A, B, C, M, K, P);
    gemv(A, x, y, M, K);
    gemv_t(A, y, z, M, K);
    double q = 0, s = 0;
    for (int j = 0; j < K; j++) q += x[j] * z[j];
    for (int c = 0; c < M * P; c++) s += C[c] * C[c];
    return q + 0.1 * s;
}

static void axpy(double *out, const double *a, const double *d, double t, int n) {
    for (int i = 0; i < n; i++) out[i] = a[i] + t * d[i];
}

int main(void) {
    double A[M * K], B[K * P], x[K], dA[M * K], dB[K * P], dx[K];
    double C[M * P], dC[M * P], y[M], dy[M];
    double Ap[M * K], Am[M * K], Bp[K * P], Bm[K * P], xp[K], xm[K], Cp[M * P], Cm[M * P], yp[M], ym[M];
    double h = 1e-6;
    for (int q = 0; q < 3; q++) {
        for (int i = 0; i < M * K; i++) A[i] = sin(0.37 * i + q), dA[i] = q == 0 ? (i == 10) : cos(0.5 * i) * (q != 1);
        for (int i = 0; i < K * P; i++) B[i] = cos(0.23 * i - q), dB[i] = q == 1 ? sin(0.9 * i) : 0.1 * (q == 2) * (i % 5);
        for (int i = 0; i < K; i++) x[i] = 0.2 * i - 0.8 + 0.1 * q, dx[i] = q == 2 ? 0.3 - 0.07 * i : (i == 4);
        memset(dC, 0, sizeof dC);
        memset(dy, 0, sizeof dy);
        double t = __enzyme_fwddiff((void *)model, enzyme_dup, A, dA, enzyme_dup, B, dB, enzyme_dup, x, dx,
                                    enzyme_dup, C, dC, enzyme_dup, y, dy);
        axpy(Ap, A, dA, h, M * K), axpy(Am, A, dA, -h, M * K);
        axpy(Bp, B, dB, h, K * P), axpy(Bm, B, dB, -h, K * P);
        axpy(xp, x, dx, h, K), axpy(xm, x, dx, -h, K);
        double fp = model(Ap, Bp, xp, Cp, yp), fm = model(Am, Bm, xm, Cm, ym);
        check_close("quadratic form", t, (fp - fm) / (2 * h), FD_RTOL, FD_ATOL);
        for (int i = 0; i < M * P; i++) check_close("C = A B", dC[i], (Cp[i] - Cm[i]) / (2 * h), FD_RTOL, FD_ATOL);
        for (int i = 0; i < M; i++) check_close("y = A x", dy[i], (yp[i] - ym[i]) / (2 * h), FD_RTOL, FD_ATOL);
        /* C's tangent is dA B + A dB exactly */
        for (int i = 0; i < M; i++)
            for (int j = 0; j < P; j++) {
                double e = 0;
                for (int l = 0; l < K; l++) e += dA[i * K + l] * B[l * P + j] + A[i * K + l] * dB[l * P + j];
                check_close("C tangent = dA B + A dB", dC[i * P + j], e, 1e-12, 1e-13);
            }
    }
    return zyg_report();
}
