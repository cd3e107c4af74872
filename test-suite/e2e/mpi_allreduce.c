// REQUIRES: mpi
// RUN: %mpi-run 1 -O0 %s %t | FileCheck %s
// RUN: %mpi-run 2 -O0 %s %t | FileCheck %s
// RUN: %mpi-run 4 -O0 %s %t | FileCheck %s
// RUN: %mpi-run 1 -O2 %s %t | FileCheck %s
// RUN: %mpi-run 2 -O2 %s %t | FileCheck %s
// RUN: %mpi-run 4 -O2 %s %t | FileCheck %s
// MPI_Allreduce with MPI_SUM: each rank's sum of squares, summed over ranks, then a
// nonlinear function of the total on every rank; and the same reduced in place.
// CHECK-NOT: FAIL
// CHECK: ALL OK
#include "zyg_mpi_check.h"

#define N 5

double energy(double *x, int n) {
    double local = 0.0, total = 0.0;
    for (int i = 0; i < n; i++)
        local += x[i] * x[i] * (1.0 + 0.1 * i);
    MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return sin(total) + total * x[0];
}

/* Two sums at once, reduced in place. */
double in_place(double *x, int n) {
    double sums[2] = {0.0, 0.0};
    for (int i = 0; i < n; i++) {
        sums[0] += x[i];
        sums[1] += x[i] * x[i] * x[i];
    }
    MPI_Allreduce(MPI_IN_PLACE, sums, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return sums[0] * sums[1] + exp(0.1 * sums[0]) * x[n - 1];
}

static double energy_fd(double *x, void *ctx) { return energy(x, *(int *)ctx); }
static double in_place_fd(double *x, void *ctx) { return in_place(x, *(int *)ctx); }

int main(int argc, char **argv) {
    zyg_mpi_init(&argc, &argv);
    int n = N;
    double x[N], dx[N];
    for (int i = 0; i < N; i++)
        x[i] = 0.1 + 0.05 * i + 0.03 * zyg_mpi_rank;
    for (int i = 0; i < N; i++)
        dx[i] = 0.0;
    __enzyme_autodiff((void *)energy, enzyme_dup, x, dx, enzyme_const, n);
    zyg_mpi_fd("energy", energy_fd, &n, x, N, dx);
    for (int i = 0; i < N; i++)
        dx[i] = 0.0;
    __enzyme_autodiff((void *)in_place, enzyme_dup, x, dx, enzyme_const, n);
    zyg_mpi_fd("in_place", in_place_fd, &n, x, N, dx);
    return zyg_mpi_report();
}
