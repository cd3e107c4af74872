// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// One scratch buffer (on the stack, and one on the heap) overwritten in every iteration of
// an outer loop: a recurrent state s is fed through a layer of features computed into the
// scratch; each iteration's scratch contents are needed again by the adjoint.
#include <stdlib.h>
#include "zyg_check.h"

enum { M = 5, T = 6 };

double recur(const double *w, const double *theta, double s0) {
    double scratch[M];
    double *heap = malloc(M * sizeof(double));
    double s = s0;
    for (int t = 0; t < T; t++) {
        for (int j = 0; j < M; j++)
            scratch[j] = tanh(w[j] * s + theta[t]);
        for (int j = 0; j < M; j++)
            heap[j] = scratch[j] * scratch[(j + 1) % M];
        double acc = 0.0;
        for (int j = 0; j < M; j++)
            acc += heap[j] * w[j] + 0.3 * scratch[j];
        s = 0.5 * s + acc;
    }
    free(heap);
    return s * s;
}

/* z = (w[M], theta[T], s0) */
static double recur_flat(const double *z) { return recur(z, z + M, z[M + T]); }

static double fd(double (*g)(const double *), const double *x, int n, int k) {
    double a[64], b[64], h = ZYG_STEP(x[k]);
    for (int i = 0; i < n; i++) a[i] = b[i] = x[i];
    a[k] += h;
    b[k] -= h;
    return (g(a) - g(b)) / (2 * h);
}

int main(void) {
    double pts[2][M + T + 1] = {{0.4, -0.3, 0.7, 0.2, -0.6, 0.1, -0.2, 0.3, 0.05, -0.1, 0.2, 0.5},
                                {-0.5, 0.6, 0.1, -0.4, 0.3, 0.2, 0.1, -0.3, 0.4, 0.0, -0.2, -0.8}};
    for (int p = 0; p < 2; p++) {
        double *z = pts[p], dw[M] = {0}, dth[T] = {0};
        double ds0 = __enzyme_autodiff((void *)recur, enzyme_dup, z, dw, enzyme_dup, z + M, dth, z[M + T]);
        for (int k = 0; k < M; k++)
            check_close("dw", dw[k], fd(recur_flat, z, M + T + 1, k), FD_RTOL, FD_ATOL);
        for (int k = 0; k < T; k++)
            check_close("dtheta", dth[k], fd(recur_flat, z, M + T + 1, M + k), FD_RTOL, FD_ATOL);
        check_close("ds0", ds0, fd(recur_flat, z, M + T + 1, M + T), FD_RTOL, FD_ATOL);
    }
    return zyg_report();
}
