// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Results written only through dup output pointers (void functions), the output shadows
// seeded by the caller with weights dy[i] = 1 + i: a plain map, and an accumulating update
// y[i] += ... whose d(y out)/d(y in) = 1 leaves the seed in dy after the call.
#include "zyg_check.h"

void __enzyme_autodiffv(void *, ...);

enum { N = 5, M = 3 };

/* y = W tanh(x) + x[0] * x[N-1], y written, never read */
void layer(const double *W, const double *x, double *y) {
    for (int i = 0; i < M; i++) {
        double s = x[0] * x[N - 1];
        for (int j = 0; j < N; j++)
            s += W[i * N + j] * tanh(x[j]);
        y[i] = s;
    }
}

/* y[i] += a * x[i]^2: y read and written */
void accumulate(const double *x, double *y, double a) {
    for (int i = 0; i < N; i++)
        y[i] += a * x[i] * x[i];
}

/* weighted sum of layer's outputs, for finite differences; z = (W[M*N], x[N]) */
static double layer_weighted(const double *z) {
    double y[M], s = 0.0;
    layer(z, z + M * N, y);
    for (int i = 0; i < M; i++) s += (1.0 + i) * y[i];
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
    double z[M * N + N] = {0.2, -0.5, 0.7, 0.1, -0.3, 0.9, 0.4, -0.8, 0.6, 0.05, -0.2, 1.1, 0.3, -0.6, 0.5,
                           0.6, -1.2, 0.35, 0.9, -0.45};
    double dW[M * N] = {0}, dx[N] = {0}, y[M], dy[M];
    for (int i = 0; i < M; i++) dy[i] = 1 + i;
    __enzyme_autodiffv((void *)layer, enzyme_dup, z, dW, enzyme_dup, z + M * N, dx, enzyme_dup, y, dy);
    double want_y[M];
    layer(z, z + M * N, want_y);
    for (int i = 0; i < M; i++) {
        check_close("y", y[i], want_y[i], EXACT_RTOL, EXACT_ATOL);
        check_close("dy consumed", dy[i], 0.0, 0, 0);
    }
    for (int k = 0; k < M * N; k++)
        check_close("dW", dW[k], fd(layer_weighted, z, M * N + N, k), FD_RTOL, FD_ATOL);
    for (int k = 0; k < N; k++)
        check_close("dx", dx[k], fd(layer_weighted, z, M * N + N, M * N + k), FD_RTOL, FD_ATOL);

    double xs[2][N] = {{0.5, -1.0, 2.0, 0.3, -0.7}, {1.2, 0.4, -0.6, -1.5, 0.9}};
    for (int q = 0; q < 2; q++) {
        double x2[N], dx2[N] = {0}, y2[N] = {1, 2, 3, 4, 5}, dy2[N];
        for (int i = 0; i < N; i++) x2[i] = xs[q][i], dy2[i] = 1 + i;
        __enzyme_autodiffv((void *)accumulate, enzyme_dup, x2, dx2, enzyme_dup, y2, dy2, enzyme_const, 0.75);
        for (int i = 0; i < N; i++) {
            /* d/dx of sum_i (1+i) * y_i = (1+i) * 2 a x_i, exactly */
            check_close("accumulate dx", dx2[i], (1 + i) * 2 * 0.75 * x2[i], EXACT_RTOL, EXACT_ATOL);
            check_close("accumulate dy = seed", dy2[i], 1 + i, EXACT_RTOL, EXACT_ATOL);
            check_close("accumulate y", y2[i], (1 + i) + 0.75 * x2[i] * x2[i], EXACT_RTOL, EXACT_ATOL);
        }
    }
    return zyg_report();
}
