// REQUIRES: x86-64-v4
// RUN: %grad-run -O2 %s %t | FileCheck %s
// RUN: %grad-run -O3 %s %t.v4 -march=x86-64-v4 | FileCheck %s
// RUN: grep -q "llvm.masked.gather" %t.v4.O3.ll
// RUN: grep -q "llvm.masked.scatter" %t.v4.O3.ll
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Forward mode through loops clang vectorises with AVX-512 into masked gathers and
// scatters (the -march=x86-64-v4 run): a conditional indexed load x[c[i]], indexed stores
// y[idx[i]] with repeated indices (the last store stays), and conditional ones. The
// tangents of y (in its shadow) against central differences along the same direction.
#include "zyg_check.h"
#include <string.h>

void pick(double *restrict y, const double *restrict x, const int *c, int n) {
    for (int i = 0; i < n; i++)
        if (c[i])
            y[i] = x[c[i]] * x[c[i]];
}

void place(double *restrict y, const double *restrict x, const int *restrict idx, int n) {
    for (int i = 0; i < n; i++)
        y[idx[i]] = x[i] * 2.0 + x[i] * x[i];
}

void place_if(double *restrict y, const double *restrict x, const int *restrict idx, const int *restrict c, int n) {
    for (int i = 0; i < n; i++)
        if (c[i])
            y[idx[i]] = x[i] * 3.0;
}

enum { N = 37 };
static int C[N], IDX[N];

/* y after running `which` on a fresh y (0.01 j in each element). */
static void run(int which, const double *x, double *y) {
    for (int j = 0; j < N; j++) y[j] = 0.01 * j;
    if (which == 0) pick(y, x, C, N);
    if (which == 1) place(y, x, IDX, N);
    if (which == 2) place_if(y, x, IDX, C, N);
}

int main(void) {
    double x[N], dx[N];
    for (int i = 0; i < N; i++) {
        x[i] = 0.3 + 0.05 * i;
        dx[i] = 0.1 * ((i * 5) % 7) - 0.3;
        C[i] = (i * 7) % 5 ? (i * 11) % N : 0;
        IDX[i] = (i * 3) % 11;
    }
    for (int which = 0; which < 3; which++) {
        double y[N], dy[N];
        for (int j = 0; j < N; j++) {
            y[j] = 0.01 * j;
            dy[j] = 0;
        }
        if (which == 0) __enzyme_fwddiff((void *)pick, enzyme_dup, y, dy, enzyme_dup, x, dx, enzyme_const, C, N);
        if (which == 1) __enzyme_fwddiff((void *)place, enzyme_dup, y, dy, enzyme_dup, x, dx, enzyme_const, IDX, N);
        if (which == 2)
            __enzyme_fwddiff((void *)place_if, enzyme_dup, y, dy, enzyme_dup, x, dx, enzyme_const, IDX, enzyme_const, C, N);
        double h = 1e-6, xp[N], xm[N], yp[N], ym[N];
        for (int i = 0; i < N; i++) {
            xp[i] = x[i] + h * dx[i];
            xm[i] = x[i] - h * dx[i];
        }
        run(which, xp, yp);
        run(which, xm, ym);
        for (int j = 0; j < N; j++) check_close("tangent of y[j]", dy[j], (yp[j] - ym[j]) / (2 * h), FD_RTOL, FD_ATOL);
    }
    return zyg_report();
}
