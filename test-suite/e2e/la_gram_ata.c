// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t.fast -ffast-math | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// The Gram matrix G = A^T A (A is 5x3, read twice in the product, so each entry's
// gradient has two contributions), then a loss mixing trace, log of the diagonal and the
// off-diagonal entries squared.
#include "zyg_check.h"

enum { R = 5, C = 3 };

double gram_loss(const double *A) {
    double G[C][C];
    for (int i = 0; i < C; i++)
        for (int j = 0; j < C; j++) {
            G[i][j] = 0.0;
            for (int k = 0; k < R; k++)
                G[i][j] += A[k * C + i] * A[k * C + j];
        }
    double s = 0.0;
    for (int i = 0; i < C; i++) {
        s += log(G[i][i]);
        for (int j = 0; j < C; j++)
            if (i != j)
                s += 0.3 * G[i][j] * G[i][j];
    }
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
        double A[R * C], dA[R * C] = {0};
        for (int i = 0; i < R * C; i++) A[i] = sin(0.9 * i + 2.0 * q + 0.3);
        __enzyme_autodiff((void *)gram_loss, enzyme_dup, A, dA);
        for (int k = 0; k < R * C; k++)
            check_close("dA", dA[k], fd(gram_loss, A, R * C, k), FD_RTOL, FD_ATOL);
    }
    return zyg_report();
}
