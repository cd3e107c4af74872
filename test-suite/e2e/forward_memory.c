// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// RUN: %grad-run -O3 %s %t.native -march=native | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Forward mode through memory, loops, calls, structs, heap memory and recursion: `dup`
// arrays carry their tangents in their shadows, in and out. Each output tangent is checked
// against central differences of the same program along the same input direction.
#include <stdlib.h>
#include <string.h>
#include "zyg_check.h"

#define N 6

typedef struct {
    double scale, shift;
} affine;

static double smooth(double v, const affine *a) { return a->scale * tanh(v) + a->shift * v * v; }

/* recursion: x^n by halving */
static double power(double x, int n) {
    if (n == 0) return 1.0;
    double h = power(x, n / 2);
    return n % 2 ? h * h * x : h * h;
}

/* out[i] = smooth(x[i] * x[i-1]) + running sum, then a copy through heap memory; returns a norm. */
static double model(const double *x, double *out, affine *a, int n) {
    double *tmp = malloc(n * sizeof(double));
    double sum = 0;
    for (int i = 0; i < n; i++) {
        double prev = i > 0 ? x[i - 1] : 1.0;
        sum += smooth(x[i] * prev, a);
        tmp[i] = sum + power(x[i], 3);
    }
    memcpy(out, tmp, n * sizeof(double));
    free(tmp);
    double norm = 0;
    for (int i = 0; i < n; i++) norm += out[i] * out[i];
    return sqrt(norm);
}

static double run(const double *x, double *out, double scale) {
    affine a = {scale, 0.25};
    return model(x, out, &a, N);
}

int main(void) {
    double x[N] = {0.3, -0.5, 0.8, 1.1, -0.2, 0.6};
    double dirs[2][N] = {{1, 0, 0, 0, 0, 0}, {0.2, -0.4, 0.6, 0.1, 0.3, -0.5}};
    for (int d = 0; d < 2; d++) {
        double dx[N], out[N], dout[N];
        memcpy(dx, dirs[d], sizeof dx);
        double dscale = d ? 0.7 : 0.0;
        double t = __enzyme_fwddiff((void *)run, enzyme_dup, x, dx, enzyme_dup, out, dout, 1.5, dscale);
        /* central differences along (dx, dscale) */
        double h = 1e-6, xp[N], xm[N], op[N], om[N];
        for (int i = 0; i < N; i++) {
            xp[i] = x[i] + h * dirs[d][i];
            xm[i] = x[i] - h * dirs[d][i];
        }
        double rp = run(xp, op, 1.5 + h * dscale), rm = run(xm, om, 1.5 - h * dscale);
        check_close("tangent of the norm", t, (rp - rm) / (2 * h), FD_RTOL, FD_ATOL);
        for (int i = 0; i < N; i++) check_close("tangent of out[i]", dout[i], (op[i] - om[i]) / (2 * h), FD_RTOL, FD_ATOL);
        for (int i = 0; i < N; i++) check_close("dx is left as it was", dx[i], dirs[d][i], 0, 0);
    }
    return zyg_report();
}
