// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Matrix power M^k by repeated multiplication: P = P M into a temporary, copied back into
// P each step (a runtime k), so P is overwritten k times and every intermediate power is
// needed by the adjoint; loss = trace(M^k) + a quarter of the sum of the entries.
#include "zyg_check.h"

enum { N = 3 };

double mpow_loss(const double *M, int k) {
    double P[N * N], T[N * N];
    for (int i = 0; i < N * N; i++)
        P[i] = (i % (N + 1) == 0) ? 1.0 : 0.0;
    for (int step = 0; step < k; step++) {
        for (int i = 0; i < N; i++)
            for (int j = 0; j < N; j++) {
                double s = 0.0;
                for (int l = 0; l < N; l++)
                    s += P[i * N + l] * M[l * N + j];
                T[i * N + j] = s;
            }
        for (int i = 0; i < N * N; i++)
            P[i] = T[i];
    }
    double s = 0.0;
    for (int i = 0; i < N; i++)
        s += P[i * N + i];
    for (int i = 0; i < N * N; i++)
        s += 0.25 * P[i];
    return s;
}

static double mpow5(const double *M) { return mpow_loss(M, 5); }

static double fd(double (*g)(const double *), const double *x, int n, int k) {
    double a[64], b[64], h = ZYG_STEP(x[k]);
    for (int i = 0; i < n; i++) a[i] = b[i] = x[i];
    a[k] += h;
    b[k] -= h;
    return (g(a) - g(b)) / (2 * h);
}

int main(void) {
    double pts[2][N * N] = {{0.5, -0.3, 0.2, 0.1, 0.8, -0.4, 0.3, 0.2, 0.6}, {-0.7, 0.4, 0.1, 0.5, 0.3, 0.9, -0.2, 0.6, -0.5}};
    for (int q = 0; q < 2; q++) {
        double dM[N * N] = {0};
        __enzyme_autodiff((void *)mpow_loss, enzyme_dup, pts[q], dM, enzyme_const, 5);
        for (int k = 0; k < N * N; k++)
            check_close("dM", dM[k], fd(mpow5, pts[q], N * N, k), FD_RTOL, FD_ATOL);
    }
    return zyg_report();
}
