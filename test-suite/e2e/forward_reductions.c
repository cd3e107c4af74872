// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// RUN: %grad-run -O3 %s %t.native -march=native | FileCheck %s
// RUN: %grad-run -O3 %s %t.fast -march=native -ffast-math | FileCheck %s
// RUN: grep -q "llvm.vector.reduce.fadd" %t.fast.O3.ll
// RUN: grep -q "llvm.vector.reduce.fmul" %t.fast.O3.ll
// RUN: grep -q "llvm.vector.reduce.fmax" %t.fast.O3.ll
// RUN: grep -q "llvm.vector.reduce.fmin" %t.fast.O3.ll
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Forward mode through sum reductions clang vectorises (in the -ffast-math run, into
// llvm.vector.reduce.fadd over wide vectors): a dot product, a weighted sum of squares, a
// log-sum-exp, a variance with two passes, and a reduction of a conditional (select) over
// the array; and a product, a running maximum and a running minimum (llvm.vector.reduce.fmul,
// .fmax and .fmin under -ffast-math): the product's tangent exact where factors are zero,
// the extremes' that of the extreme element. Tangents against central differences along the
// same direction, or exact.
#include <string.h>
#include "zyg_check.h"

#define N 37

static double reductions(const double *x, const double *y, double a, int n) {
    double dot = 0, sq = 0, mx = x[0], lse = 0, mean = 0, var = 0, cond = 0;
    for (int i = 0; i < n; i++) dot += x[i] * y[i];
    for (int i = 0; i < n; i++) sq += (i + 1) * x[i] * x[i];
    for (int i = 0; i < n; i++) lse += exp(a * (x[i] - mx));
    for (int i = 0; i < n; i++) mean += y[i];
    mean /= n;
    for (int i = 0; i < n; i++) var += (y[i] - mean) * (y[i] - mean);
    for (int i = 0; i < n; i++) cond += x[i] > 0.1 ? x[i] * a : y[i] * y[i];
    return dot + 0.01 * sq + mx + log(lse) / a + var / n + cond;
}

static double extremes(const double *x, int n) {
    double p = 1.0, hi = x[0], lo = x[0];
    for (int i = 0; i < n; i++) p *= x[i];
    for (int i = 1; i < n; i++) hi = x[i] > hi ? x[i] : hi;
    for (int i = 1; i < n; i++) lo = x[i] < lo ? x[i] : lo;
    return p + 3.0 * hi - 0.5 * lo;
}

/* the tangent of extremes along dx, exactly: the product rule, and the extreme elements' */
static double extremes_tangent(const double *x, const double *dx, int n) {
    double t = 0.0;
    for (int k = 0; k < n; k++) {
        double others = 1.0;
        for (int j = 0; j < n; j++)
            if (j != k)
                others *= x[j];
        t += others * dx[k];
    }
    int hi = 0, lo = 0;
    for (int i = 1; i < n; i++) {
        if (x[i] > x[hi]) hi = i;
        if (x[i] < x[lo]) lo = i;
    }
    return t + 3.0 * dx[hi] - 0.5 * dx[lo];
}

int main(void) {
    double x[N], y[N], dx[N], dy[N], xp[N], xm[N], yp[N], ym[N], h = 1e-6;
    for (int q = 0; q < 3; q++) {
        for (int i = 0; i < N; i++) {
            x[i] = sin(0.77 * i + q) * 0.9 + 0.013 * i;  /* none at 0.1 */
            y[i] = cos(0.31 * i - q);
            dx[i] = q == 0 ? (i == 5) : 0.2 * cos(1.3 * i);
            dy[i] = q == 1 ? 0.0 : 0.1 * ((i % 5) - 2);
            xp[i] = x[i] + h * dx[i], xm[i] = x[i] - h * dx[i];
            yp[i] = y[i] + h * dy[i], ym[i] = y[i] - h * dy[i];
        }
        double a = 1.5 + 0.5 * q, da = q == 2 ? 0.8 : 0.0;
        double t = __enzyme_fwddiff((void *)reductions, enzyme_dup, x, dx, enzyme_dup, y, dy, a, da, enzyme_const, N);
        double want = (reductions(xp, yp, a + h * da, N) - reductions(xm, ym, a - h * da, N)) / (2 * h);
        check_close("reductions", t, want, FD_RTOL, FD_ATOL);
        double tx = __enzyme_fwddiff((void *)reductions, enzyme_dup, x, dx, enzyme_const, y, a, 0.0, enzyme_const, N);
        want = (reductions(xp, y, a, N) - reductions(xm, y, a, N)) / (2 * h);
        check_close("reductions, y const", tx, want, FD_RTOL, FD_ATOL);
    }
    /* 29 factors near 1 (some negative); then one and two of them zero */
    for (int zeros = 0; zeros < 3; zeros++) {
        enum { M = 29 };
        double x[M], dx[M];
        for (int i = 0; i < M; i++) {
            x[i] = 0.9 + 0.01 * (i % 7) + 0.001 * i - (i % 5 == 1 ? 1.85 : 0.0);
            dx[i] = 0.3 * cos(0.7 * i) + (i == 11);
        }
        x[13] = 1.6, x[20] = -1.4; /* the extremes */
        if (zeros > 0) x[4] = 0.0;
        if (zeros > 1) x[23] = 0.0;
        double t = __enzyme_fwddiff((void *)extremes, enzyme_dup, x, dx, enzyme_const, M);
        check_close("product, max, min (exact)", t, extremes_tangent(x, dx, M), EXACT_RTOL, EXACT_ATOL);
    }
    return zyg_report();
}
