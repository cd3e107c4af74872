// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Modified Gram-Schmidt QR of a 5x3 matrix, Q built in place from a copy of A column by
// column (each column rewritten once per earlier column); one loss on R (log|R_ii| and the
// off-diagonal squares) and one on Q (a fixed weighting of its entries).
#include "zyg_check.h"

enum { M = 5, N = 3 };

/* A is M x N row-major; Q (M x N) and R (N x N) are outputs */
__attribute__((noinline)) static void mgs(const double *A, double *Q, double *R) {
    for (int i = 0; i < M * N; i++)
        Q[i] = A[i];
    for (int j = 0; j < N; j++) {
        for (int k = 0; k < j; k++) {
            double d = 0.0;
            for (int i = 0; i < M; i++)
                d += Q[i * N + k] * Q[i * N + j];
            R[k * N + j] = d;
            for (int i = 0; i < M; i++)
                Q[i * N + j] -= d * Q[i * N + k];
        }
        double nrm = 0.0;
        for (int i = 0; i < M; i++)
            nrm += Q[i * N + j] * Q[i * N + j];
        nrm = sqrt(nrm);
        R[j * N + j] = nrm;
        for (int i = 0; i < M; i++)
            Q[i * N + j] /= nrm;
        for (int k = j + 1; k < N; k++)
            R[k * N + j] = 0.0;
    }
}

double loss_r(const double *A) {
    double Q[M * N], R[N * N];
    mgs(A, Q, R);
    double s = 0.0;
    for (int i = 0; i < N; i++) {
        s += log(fabs(R[i * N + i]));
        for (int j = i + 1; j < N; j++)
            s += R[i * N + j] * R[i * N + j];
    }
    return s;
}

double loss_q(const double *A) {
    double Q[M * N], R[N * N];
    mgs(A, Q, R);
    double s = 0.0;
    for (int i = 0; i < M * N; i++)
        s += Q[i] * (0.5 + sin(1.0 * i));
    return s;
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
        double A[M * N], dR[M * N] = {0}, dQ[M * N] = {0};
        for (int i = 0; i < M * N; i++) A[i] = sin(1.1 * i + 0.5 + q) + (i % (N + 1) == 0 ? 1.0 : 0.0);
        __enzyme_autodiff((void *)loss_r, enzyme_dup, A, dR);
        __enzyme_autodiff((void *)loss_q, enzyme_dup, A, dQ);
        for (int k = 0; k < M * N; k++) {
            check_close("dA (loss on R)", dR[k], fd(loss_r, A, M * N, k), FD_RTOL, FD_ATOL);
            check_close("dA (loss on Q)", dQ[k], fd(loss_q, A, M * N, k), FD_RTOL, FD_ATOL);
        }
    }
    return zyg_report();
}
