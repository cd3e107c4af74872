// REQUIRES: openmp
// RUN: %grad-run-omp -O0 %s %t -fopenmp | FileCheck %s
// RUN: %grad-run-omp -O2 %s %t -fopenmp | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// `#pragma omp atomic` additions into shared memory (`atomicrmw fadd`): a histogram of
// weighted contributions, several iterations adding into the same bin, and a shared
// scalar. The adjoint of an atomic addition reads the bin's adjoint and leaves it there.
#include <math.h>
#include "zyg_omp.h"

#define N 90
#define BINS 5

static double histogram(const double *x, double *bins, double *total, int n) {
#pragma omp parallel for
    for (int i = 0; i < n; i++) {
        double v = x[i] * x[i] * sin(x[i]);
#pragma omp atomic
        bins[i % BINS] += v;
#pragma omp atomic
        *total += 0.5 * v;
    }
    double s = 0;
    for (int b = 0; b < BINS; b++)
        s += bins[b] * bins[b] * (b + 1);
    return s + *total * *total;
}

static double histogram_of(const double *x, void *ctx) {
    (void)ctx;
    double bins[BINS] = {0}, total = 0;
    return histogram(x, bins, &total, N);
}

int main(void) {
    double x[N], serial[N];
    for (int i = 0; i < N; i++)
        x[i] = 0.03 * i - 1.2;
    ZYG_FOR_TEAMS(t) {
        double dx[N] = {0}, bins[BINS] = {0}, dbins[BINS] = {0}, total = 0, dtotal = 0;
        __enzyme_autodiff((void *)histogram, enzyme_dup, x, dx, enzyme_dup, bins, dbins, enzyme_dup, &total, &dtotal,
                          enzyme_const, N);
        check_array_fd_every("histogram", histogram_of, 0, x, N, dx, 7);
        if (t == 1)
            for (int i = 0; i < N; i++)
                serial[i] = dx[i];
        check_same_as_serial("histogram, teams", dx, serial, N);
    }
    return zyg_report();
}
