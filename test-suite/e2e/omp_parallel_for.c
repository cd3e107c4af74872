// REQUIRES: openmp
// RUN: %grad-run-omp -O0 %s %t -fopenmp | FileCheck %s
// RUN: %grad-run-omp -O2 %s %t -fopenmp | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// `#pragma omp parallel for` with the default (static) schedule: each thread writes its
// own block of y, and the serial sum after the region reads all of it. The gradient goes
// back through the region forked again (rules/openmp.rs), at 1, 2 and 4 threads.
#include <math.h>
#include "zyg_omp.h"

#define N 37

static double energy(const double *x, double *y, int n) {
#pragma omp parallel for
    for (int i = 0; i < n; i++)
        y[i] = sin(x[i]) * x[i] + 0.5 * x[i] * x[i];
    double s = 0;
    for (int i = 0; i < n; i++)
        s += y[i] * y[i];
    return s;
}

static double energy_of(const double *x, void *ctx) {
    (void)ctx;
    double y[N];
    return energy(x, y, N);
}

int main(void) {
    double x[N], y[N], dy[N], serial[N];
    for (int i = 0; i < N; i++)
        x[i] = 0.13 * i - 2.1;
    ZYG_FOR_TEAMS(t) {
        double dx[N] = {0};
        for (int i = 0; i < N; i++)
            dy[i] = 0;
        __enzyme_autodiff((void *)energy, enzyme_dup, x, dx, enzyme_dup, y, dy, enzyme_const, N);
        check_array_fd("energy", energy_of, 0, x, N, dx);
        // Known derivative: 2 y_i y_i'.
        for (int i = 0; i < N; i++) {
            double yi = sin(x[i]) * x[i] + 0.5 * x[i] * x[i];
            check_close("energy, exact", dx[i], 2 * yi * (cos(x[i]) * x[i] + sin(x[i]) + x[i]), 1e-12, 1e-13);
        }
        if (t == 1)
            for (int i = 0; i < N; i++)
                serial[i] = dx[i];
        check_same_as_serial("energy, teams", dx, serial, N);
    }
    return zyg_report();
}
