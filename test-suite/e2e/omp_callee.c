// REQUIRES: openmp
// RUN: %grad-run-omp -O0 %s %t -fopenmp | FileCheck %s
// RUN: %grad-run-omp -O2 %s %t -fopenmp | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// A region that calls functions: a callee differentiated for the team (its shadow updates
// of shared memory atomic too), a private scratch array per thread (its shadow on the
// thread's own tape, updated plainly), and an orphaned worksharing loop in a callee
// (`#pragma omp for` outside the `parallel` it runs in), whose barrier is replayed.
#include <math.h>
#include "zyg_omp.h"

#define N 40
#define K 4

__attribute__((noinline)) static double features(const double *x, int i, int n, double *scratch) {
    for (int k = 0; k < K; k++)
        scratch[k] = x[(i + k) % n] * (k + 1);
    double s = 0;
    for (int k = 0; k < K; k++)
        s += scratch[k] * scratch[(k + 1) % K];
    return s;
}

__attribute__((noinline)) static void square_all(double *y, const double *x, int n) {
#pragma omp for
    for (int i = 0; i < n; i++)
        y[i] = x[i] * x[i];
}

static double model(const double *x, double *y, double *z, int n) {
#pragma omp parallel
    {
        double scratch[K];
#pragma omp for
        for (int i = 0; i < n; i++)
            y[i] = features(x, i, n, scratch);
        square_all(z, y, n);
    }
    double s = 0;
    for (int i = 0; i < n; i++)
        s += z[i] * 0.01 + y[i];
    return s;
}

static double model_of(const double *x, void *ctx) {
    (void)ctx;
    double y[N], z[N];
    return model(x, y, z, N);
}

int main(void) {
    double x[N], serial[N];
    for (int i = 0; i < N; i++)
        x[i] = cos(0.3 * i);
    ZYG_FOR_TEAMS(t) {
        double dx[N] = {0}, y[N], dy[N] = {0}, z[N], dz[N] = {0};
        __enzyme_autodiff((void *)model, enzyme_dup, x, dx, enzyme_dup, y, dy, enzyme_dup, z, dz, enzyme_const, N);
        check_array_fd("model", model_of, 0, x, N, dx);
        if (t == 1)
            for (int i = 0; i < N; i++)
                serial[i] = dx[i];
        check_same_as_serial("model, teams", dx, serial, N);
    }
    return zyg_report();
}
