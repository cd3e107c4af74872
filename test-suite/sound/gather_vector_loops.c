// REQUIRES: x86-64-v4
// RUN: %grad-run -O2 %s %t | FileCheck %s
// RUN: %grad-run -O3 %s %t.v4 -march=x86-64-v4 | FileCheck %s
// RUN: grep -q "llvm.masked.gather" %t.v4.O3.ll
// RUN: grep -q "llvm.masked.scatter" %t.v4.O3.ll
// RUN: %grad-run -O3 %s %t.native -march=native | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Loops that clang vectorises with AVX-512 into gathers and scatters (the -march=x86-64-v4
// and -march=native runs; gather_vector_loops_avx2.c runs this file with AVX2 gathers):
// - a conditional load of one address, x[0] (a gather from a splat of one pointer, whose
//   lanes all add their adjoints into the same element);
// - a conditional indexed load, x[c[i]] (a masked gather);
// - indexed stores y[idx[i]] with repeated indices (a scatter: the last store stays, so
//   only its lane takes the adjoint), conditional ones, and strided ones.
// Each gradient is checked against central differences and the derivative by hand.
#include "zyg_check.h"
#include <string.h>

void scale_uniform(double *restrict y, const double *restrict x, const double *w, const int *c, int n) {
    for (int i = 0; i < n; i++)
        if (c[i])
            y[i] = w[i] * x[0];
}

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

void stride3(double *restrict y, const double *restrict x, int n) {
    for (int i = 0; i < n; i++)
        y[3 * i] = x[i] * x[i];
}

enum { N = 37, M = 3 * N };
static int C[N], IDX[N];
static double SEED[M], W[N];

/* L(x) = sum SEED[j] * y[j] after running `which` on a fresh y. */
static int which;
static double loss(const double *x, void *ctx) {
    (void)ctx;
    double y[M], xc[M];
    memcpy(xc, x, sizeof xc);
    for (int j = 0; j < M; j++)
        y[j] = 0.01 * j;
    switch (which) {
    case 0: scale_uniform(y, xc, W, C, N); break;
    case 1: pick(y, xc, C, N); break;
    case 2: place(y, xc, IDX, N); break;
    case 3: place_if(y, xc, IDX, C, N); break;
    default: stride3(y, xc, N); break;
    }
    double s = 0;
    for (int j = 0; j < M; j++)
        s += SEED[j] * y[j];
    return s;
}

#define RUN(call)                                                                              \
    do {                                                                                       \
        for (int j = 0; j < M; j++)                                                            \
            y[j] = 0.01 * j, dy[j] = SEED[j], dx[j] = 0;                                       \
        call;                                                                                  \
    } while (0)

int main(void) {
    double x[M], y[M], dy[M], dx[M], want[M];
    for (int i = 0; i < N; i++) {
        C[i] = (i * 5) % 7 < 4 ? 1 + (i * 3) % (N - 1) : 0;
        IDX[i] = (i * 11) % 13; /* repeats: several i store to the same element */
        W[i] = 0.5 + 0.25 * (i % 5);
    }
    for (int j = 0; j < M; j++) {
        x[j] = 0.1 * (j % 17) - 0.7;
        SEED[j] = 1.0 + 0.125 * (j % 9);
    }

    which = 0;
    RUN(__enzyme_autodiff((void *)scale_uniform, enzyme_dup, y, dy, enzyme_dup, x, dx, enzyme_const, W,
                          enzyme_const, C, enzyme_const, N));
    memset(want, 0, sizeof want);
    for (int i = 0; i < N; i++)
        if (C[i])
            want[0] += SEED[i] * W[i];
    check_close("uniform dx[0]", dx[0], want[0], 1e-12, 1e-12);
    check_array_fd("uniform fd", loss, NULL, x, 1, dx);

    which = 1;
    RUN(__enzyme_autodiff((void *)pick, enzyme_dup, y, dy, enzyme_dup, x, dx, enzyme_const, C, enzyme_const, N));
    memset(want, 0, sizeof want);
    for (int i = 0; i < N; i++)
        if (C[i])
            want[C[i]] += SEED[i] * 2 * x[C[i]];
    for (int j = 0; j < N; j++)
        check_close("pick dx", dx[j], want[j], 1e-12, 1e-12);
    check_array_fd("pick fd", loss, NULL, x, N < 64 ? N : 64, dx);

    which = 2;
    RUN(__enzyme_autodiff((void *)place, enzyme_dup, y, dy, enzyme_dup, x, dx, enzyme_const, IDX, enzyme_const, N));
    for (int i = 0; i < N; i++) {
        int last = 1;
        for (int k = i + 1; k < N; k++)
            last &= IDX[k] != IDX[i];
        check_close("place dx", dx[i], last ? SEED[IDX[i]] * (2.0 + 2 * x[i]) : 0.0, 1e-12, 1e-12);
    }
    for (int j = 0; j < 13; j++)
        check_close("place dy consumed", dy[j], 0.0, 0, 0);
    check_array_fd("place fd", loss, NULL, x, N, dx);

    which = 3;
    RUN(__enzyme_autodiff((void *)place_if, enzyme_dup, y, dy, enzyme_dup, x, dx, enzyme_const, IDX, enzyme_const,
                          C, enzyme_const, N));
    for (int i = 0; i < N; i++) {
        int last = C[i] != 0;
        for (int k = i + 1; k < N; k++)
            last &= !(C[k] && IDX[k] == IDX[i]);
        check_close("place_if dx", dx[i], last ? 3 * SEED[IDX[i]] : 0.0, 1e-12, 1e-12);
    }
    check_array_fd("place_if fd", loss, NULL, x, N, dx);

    which = 4;
    RUN(__enzyme_autodiff((void *)stride3, enzyme_dup, y, dy, enzyme_dup, x, dx, enzyme_const, N));
    for (int i = 0; i < N; i++)
        check_close("stride3 dx", dx[i], SEED[3 * i] * 2 * x[i], 1e-12, 1e-12);
    for (int j = 0; j < M; j++)
        check_close("stride3 dy", dy[j], j % 3 ? SEED[j] : 0.0, 0, 0);
    check_array_fd("stride3 fd", loss, NULL, x, N, dx);
    return zyg_report();
}
