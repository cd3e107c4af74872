// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// RUN: %grad-run -O3 %s %t.o3 %march-v3 | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// enzyme_dupnoneed on an output buffer (the caller does not need the primal values, only
// the gradient), mixed with enzyme_dup inputs and enzyme_const on the size; the seed is
// the output shadow, and the gradient must equal the plain dup request's. The inputs are
// rows of a table (the second row starts 8 bytes past a 16-byte boundary).
#include "zyg_check.h"

void __enzyme_autodiffv(void *, ...);

enum { N = 5 };

void features(const double *x, const double *theta, double *out, int n) {
    for (int i = 0; i < n; i++) {
        double z = theta[0] * x[i] + theta[1] * x[(i + 1) % n] + theta[2];
        out[i] = z / (1.0 + fabs(z)) + theta[3] * x[i] * x[i];
    }
}

static const double seed[N] = {1.0, -0.5, 2.0, 0.25, 1.5};
/* z = (x[N], theta[4]); the seeded sum of the outputs */
static double seeded(const double *z) {
    double out[N], s = 0.0;
    features(z, z + N, out, N);
    for (int i = 0; i < N; i++) s += seed[i] * out[i];
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
    double pts[2][N + 4] = {{0.5, -1.1, 0.8, 0.2, -0.3, 0.7, -0.4, 0.1, 0.3},
                            {-0.9, 0.4, 1.3, -0.6, 0.25, 1.2, 0.5, -0.2, -0.6}};
    for (int q = 0; q < 2; q++) {
        double *z = pts[q], dx[N] = {0}, dth[4] = {0}, out[N], dout[N];
        double dx2[N] = {0}, dth2[4] = {0}, out2[N], dout2[N];
        for (int i = 0; i < N; i++) dout[i] = dout2[i] = seed[i];
        __enzyme_autodiffv((void *)features, enzyme_dup, z, dx, enzyme_dup, z + N, dth, enzyme_dupnoneed, out, dout,
                           enzyme_const, N);
        __enzyme_autodiffv((void *)features, enzyme_dup, z, dx2, enzyme_dup, z + N, dth2, enzyme_dup, out2, dout2,
                           enzyme_const, N);
        for (int k = 0; k < N; k++) {
            check_close("dx", dx[k], fd(seeded, z, N + 4, k), FD_RTOL, FD_ATOL);
            check_close("dx == dup's", dx[k], dx2[k], EXACT_RTOL, EXACT_ATOL);
            check_close("dout consumed", dout[k], 0.0, 0, 0);
        }
        for (int k = 0; k < 4; k++) {
            check_close("dtheta", dth[k], fd(seeded, z, N + 4, N + k), FD_RTOL, FD_ATOL);
            check_close("dtheta == dup's", dth[k], dth2[k], EXACT_RTOL, EXACT_ATOL);
        }
    }
    return zyg_report();
}
