// REQUIRES: openmp
// RUN: %grad-run-omp -O0 %s %t -fopenmp | FileCheck %s
// RUN: %grad-run-omp -O2 %s %t -fopenmp | FileCheck %s
// At -O2 the loads of u add into its shadow plainly inside each thread's chunk, atomically
// at its edges (rules/openmp.rs, `owned_loads`):
// RUN: %zyg grad -O 0 %t.O2.ll -S -o - | FileCheck --check-prefix=OWNED %s
// OWNED: define internal void @__zyg_add_owned_double(
// OWNED: call void @__zyg_add_owned_double(
// CHECK-NOT: FAIL
// CHECK: ALL OK
// A stencil time loop: each step is a parallel region reading a point's neighbours, so
// neighbouring threads add into the same adjoints at their blocks' edges (atomically: the
// shadow of x is not the thread's own). The buffers are swapped between steps, and the
// serial loop around the regions forks the adjoint once per step, in reverse.
#include <math.h>
#include <string.h>
#include "zyg_omp.h"

#define N 48
#define STEPS 6

static double heat(double *u, double *v, double k, int n, int steps) {
    for (int s = 0; s < steps; s++) {
#pragma omp parallel for
        for (int i = 0; i < n; i++) {
            double left = i > 0 ? u[i - 1] : 0, right = i < n - 1 ? u[i + 1] : 0;
            v[i] = u[i] + k * (left - 2 * u[i] + right) - 0.01 * u[i] * u[i] * u[i];
        }
        double *w = u;
        u = v;
        v = w;
    }
    double e = 0;
    for (int i = 0; i < n; i++)
        e += u[i] * u[i] * (1 + 0.1 * i);
    return e;
}

static double heat_of(const double *x, void *ctx) {
    (void)ctx;
    double u[N], v[N];
    memcpy(u, x, sizeof u);
    return heat(u, v, 0.23, N, STEPS);
}

int main(void) {
    double x[N], serial[N];
    for (int i = 0; i < N; i++)
        x[i] = sin(0.4 * i);
    ZYG_FOR_TEAMS(t) {
        double u[N], v[N], du[N] = {0}, dv[N] = {0};
        memcpy(u, x, sizeof u);
        __enzyme_autodiff((void *)heat, enzyme_dup, u, du, enzyme_dup, v, dv, enzyme_const, 0.23, enzyme_const, N,
                          enzyme_const, STEPS);
        check_array_fd("heat", heat_of, 0, x, N, du);
        if (t == 1)
            for (int i = 0; i < N; i++)
                serial[i] = du[i];
        check_same_as_serial("heat, teams", du, serial, N);
    }
    return zyg_report();
}
