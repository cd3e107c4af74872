// REQUIRES: openmp
// RUN: %grad-run-omp -O0 %s %t -fopenmp | FileCheck %s
// RUN: %grad-run-omp -O2 %s %t -fopenmp | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Work split by hand with `omp_get_thread_num()`/`omp_get_num_threads()`: each thread
// sums a strided share into its slot of a shared array of partial sums, and one thread
// (`#pragma omp single`, then `master`) combines them after a barrier. The thread numbers
// are integers the primal records, so each tape's adjoint replays its own share.
#include <math.h>
#include "zyg_omp.h"

#define N 57
#define MAXT 8

static double partial_sums(const double *x, double *part, double *out, int n) {
#pragma omp parallel
    {
        int me = omp_get_thread_num(), team = omp_get_num_threads();
        double acc = 0;
        for (int i = me; i < n; i += team)
            acc += x[i] * x[i] * x[i];
        part[me] = acc;
#pragma omp barrier
#pragma omp single
        {
            double s = 0;
            for (int k = 0; k < team; k++)
                s += part[k];
            out[0] = s;
        }
#pragma omp master
        out[1] = sqrt(1 + out[0] * out[0]);
    }
    return out[1];
}

static double partial_sums_of(const double *x, void *ctx) {
    (void)ctx;
    double part[MAXT], out[2];
    return partial_sums(x, part, out, N);
}

int main(void) {
    double x[N], serial[N];
    for (int i = 0; i < N; i++)
        x[i] = 0.02 * i - 0.5;
    ZYG_FOR_TEAMS(t) {
        double dx[N] = {0}, part[MAXT], dpart[MAXT] = {0}, out[2], dout[2] = {0};
        __enzyme_autodiff((void *)partial_sums, enzyme_dup, x, dx, enzyme_dup, part, dpart, enzyme_dup, out, dout,
                          enzyme_const, N);
        check_array_fd("partial sums", partial_sums_of, 0, x, N, dx);
        if (t == 1)
            for (int i = 0; i < N; i++)
                serial[i] = dx[i];
        check_same_as_serial("partial sums, teams", dx, serial, N);
    }
    return zyg_report();
}
