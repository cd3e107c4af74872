// REQUIRES: openmp
// RUN: %grad-run-omp -O0 %s %t -fopenmp | FileCheck %s
// RUN: %grad-run-omp -O2 %s %t -fopenmp | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Two parallel regions and serial code between them, in a callee of the function the
// request names: the second region reads what the serial code computed from the first.
// Also a region with `num_threads(3)` (`__kmpc_push_num_threads`), whatever the team size
// asked for elsewhere: its adjoint runs on a team of the primal's size.
#include <math.h>
#include "zyg_omp.h"

#define N 31

__attribute__((noinline)) static double layer(const double *x, double *h, double *o, int n) {
#pragma omp parallel for
    for (int i = 0; i < n; i++)
        h[i] = tanh(x[i] + 0.1 * i);
    double mean = 0;
    for (int i = 0; i < n; i++)
        mean += h[i] / n;
#pragma omp parallel for num_threads(3)
    for (int i = 0; i < n; i++)
        o[i] = (h[i] - mean) * (h[i] - mean) * x[i];
    double s = 0;
    for (int i = 0; i < n; i++)
        s += o[i];
    return s;
}

static double loss(const double *x, double *h, double *o, int n) {
    double v = layer(x, h, o, n);
    return v * v;
}

static double loss_of(const double *x, void *ctx) {
    (void)ctx;
    double h[N], o[N];
    return loss(x, h, o, N);
}

int main(void) {
    double x[N], serial[N];
    for (int i = 0; i < N; i++)
        x[i] = sin(0.7 * i);
    ZYG_FOR_TEAMS(t) {
        double dx[N] = {0}, h[N], dh[N] = {0}, o[N], d_o[N] = {0};
        __enzyme_autodiff((void *)loss, enzyme_dup, x, dx, enzyme_dup, h, dh, enzyme_dup, o, d_o, enzyme_const, N);
        check_array_fd("loss", loss_of, 0, x, N, dx);
        if (t == 1)
            for (int i = 0; i < N; i++)
                serial[i] = dx[i];
        check_same_as_serial("loss, teams", dx, serial, N);
    }
    return zyg_report();
}
