// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Power iteration for the largest eigenvalue of a symmetric 4x4 matrix: 60 steps of
// v = A v / |v| with a scratch vector, then the Rayleigh quotient. Against finite
// differences of the same computation, and against the eigenvector formula dl/dA = v v^T.
#include "zyg_check.h"

enum { N = 4, ITERS = 60 };

double top_eig(const double *A, const double *v0) {
    double v[N], w[N];
    for (int i = 0; i < N; i++)
        v[i] = v0[i];
    for (int it = 0; it < ITERS; it++) {
        double nrm = 0.0;
        for (int i = 0; i < N; i++) {
            w[i] = 0.0;
            for (int j = 0; j < N; j++)
                w[i] += A[i * N + j] * v[j];
            nrm += w[i] * w[i];
        }
        nrm = sqrt(nrm);
        for (int i = 0; i < N; i++)
            v[i] = w[i] / nrm;
    }
    double num = 0.0, den = 0.0;
    for (int i = 0; i < N; i++) {
        double av = 0.0;
        for (int j = 0; j < N; j++)
            av += A[i * N + j] * v[j];
        num += v[i] * av;
        den += v[i] * v[i];
    }
    return num / den;
}

static double v0g[N] = {1.0, 0.5, -0.3, 0.2};
static double eig_A(const double *A) { return top_eig(A, v0g); }

static double fd(double (*g)(const double *), const double *x, int n, int k) {
    double a[64], b[64], h = ZYG_STEP(x[k]);
    for (int i = 0; i < n; i++) a[i] = b[i] = x[i];
    a[k] += h;
    b[k] -= h;
    return (g(a) - g(b)) / (2 * h);
}

int main(void) {
    for (int q = 0; q < 2; q++) {
        double A[N * N], dA[N * N] = {0}, dv0[N] = {0};
        for (int i = 0; i < N; i++)
            for (int j = 0; j <= i; j++)
                A[i * N + j] = A[j * N + i] = (i == j ? 4.0 - 1.2 * i : 0.3 * sin(i + 2 * j + q));
        __enzyme_autodiff((void *)top_eig, enzyme_dup, A, dA, enzyme_dup, v0g, dv0);
        /* the converged eigenvector, for the closed form */
        double v[N], w[N];
        for (int i = 0; i < N; i++) v[i] = v0g[i];
        for (int it = 0; it < 200; it++) {
            double nrm = 0.0;
            for (int i = 0; i < N; i++) {
                w[i] = 0.0;
                for (int j = 0; j < N; j++) w[i] += A[i * N + j] * v[j];
                nrm += w[i] * w[i];
            }
            for (int i = 0; i < N; i++) v[i] = w[i] / sqrt(nrm);
        }
        for (int k = 0; k < N * N; k++) {
            check_close("dA", dA[k], fd(eig_A, A, N * N, k), FD_RTOL, FD_ATOL);
            check_close("dA = v v^T", dA[k], v[k / N] * v[k % N], 1e-6, 1e-8);
        }
        /* converged: the starting vector hardly matters */
        for (int k = 0; k < N; k++)
            check_close("dv0 ~ 0", dv0[k], 0.0, 0, 1e-6);
    }
    return zyg_report();
}
