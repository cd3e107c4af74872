// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// RUN: %grad-run -O3 %s %t.o3 %march-v3 | FileCheck %s
// RUN: %grad-run -O2 %s %t.fast -ffast-math | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Matrix product C = A B (3x4 times 4x2, row-major, into a local C) through a noinline
// helper writing its output, then a nonlinear loss on C; gradients w.r.t. both factors
// against finite differences, and against the closed form dA = G B^T, dB = A^T G.
#include "zyg_check.h"

enum { M = 3, K = 4, P = 2 };

__attribute__((noinline)) void matmul(const double *A, const double *B, double *C, int m, int k, int p) {
    for (int i = 0; i < m; i++)
        for (int j = 0; j < p; j++) {
            double s = 0.0;
            for (int l = 0; l < k; l++)
                s += A[i * k + l] * B[l * p + j];
            C[i * p + j] = s;
        }
}

double loss(const double *A, const double *B) {
    double C[M * P];
    matmul(A, B, C, M, K, P);
    double s = 0.0;
    for (int i = 0; i < M * P; i++)
        s += sin(C[i]) + 0.5 * C[i] * C[i];
    return s;
}

static double Bg[K * P], Ag[M * K];
static double loss_A(const double *A) { return loss(A, Bg); }
static double loss_B(const double *B) { return loss(Ag, B); }

static double fd(double (*g)(const double *), const double *x, int n, int k) {
    double a[64], b[64], h = ZYG_STEP(x[k]);
    for (int i = 0; i < n; i++) a[i] = b[i] = x[i];
    a[k] += h;
    b[k] -= h;
    return (g(a) - g(b)) / (2 * h);
}

int main(void) {
    for (int q = 0; q < 2; q++) {
        for (int i = 0; i < M * K; i++) Ag[i] = sin(1.3 * i + q) * 0.8;
        for (int i = 0; i < K * P; i++) Bg[i] = cos(0.7 * i - q) * 0.9;
        double dA[M * K] = {0}, dB[K * P] = {0};
        __enzyme_autodiff((void *)loss, enzyme_dup, Ag, dA, enzyme_dup, Bg, dB);
        double C[M * P], G[M * P];
        matmul(Ag, Bg, C, M, K, P);
        for (int i = 0; i < M * P; i++) G[i] = cos(C[i]) + C[i];
        for (int i = 0; i < M; i++)
            for (int l = 0; l < K; l++) {
                double want = 0.0;
                for (int j = 0; j < P; j++) want += G[i * P + j] * Bg[l * P + j];
                check_close("dA closed form", dA[i * K + l], want, 1e-12, 1e-14);
                check_close("dA", dA[i * K + l], fd(loss_A, Ag, M * K, i * K + l), FD_RTOL, FD_ATOL);
            }
        for (int l = 0; l < K; l++)
            for (int j = 0; j < P; j++) {
                double want = 0.0;
                for (int i = 0; i < M; i++) want += Ag[i * K + l] * G[i * P + j];
                check_close("dB closed form", dB[l * P + j], want, 1e-12, 1e-14);
                check_close("dB", dB[l * P + j], fd(loss_B, Bg, K * P, l * P + j), FD_RTOL, FD_ATOL);
            }
    }
    return zyg_report();
}
