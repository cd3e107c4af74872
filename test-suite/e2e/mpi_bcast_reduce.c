// REQUIRES: mpi
// RUN: %mpi-run 1 -O0 %s %t | FileCheck %s
// RUN: %mpi-run 2 -O0 %s %t | FileCheck %s
// RUN: %mpi-run 4 -O0 %s %t | FileCheck %s
// RUN: %mpi-run 1 -O2 %s %t | FileCheck %s
// RUN: %mpi-run 2 -O2 %s %t | FileCheck %s
// RUN: %mpi-run 4 -O2 %s %t | FileCheck %s
// MPI_Bcast and MPI_Reduce (MPI_SUM): the root derives parameters from its x and
// broadcasts them; every rank computes with them and its own x; the partial results are
// summed on root 1 (root 0 on one rank), once into a separate buffer and once in place
// at the root. Only the roots' results count.
// CHECK-NOT: FAIL
// CHECK: ALL OK
#include "zyg_mpi_check.h"

#define N 3

double bcast_reduce(double *x, int n) {
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int root = size > 1 ? 1 : 0;
    double params[2] = {0.0, 0.0};
    if (rank == 0) {
        params[0] = x[0] * x[1];
        params[1] = sin(x[2]);
    }
    MPI_Bcast(params, 2, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    double part[2] = {0.0, 0.0}, sum[2] = {0.0, 0.0};
    for (int i = 0; i < n; i++) {
        part[0] += params[0] * x[i] * x[i];
        part[1] += params[1] * cos(x[i]);
    }
    MPI_Reduce(part, sum, 2, MPI_DOUBLE, MPI_SUM, root, MPI_COMM_WORLD);
    double again = part[0] * part[1];
    if (rank == root)
        MPI_Reduce(MPI_IN_PLACE, &again, 1, MPI_DOUBLE, MPI_SUM, root, MPI_COMM_WORLD);
    else
        MPI_Reduce(&again, NULL, 1, MPI_DOUBLE, MPI_SUM, root, MPI_COMM_WORLD);
    return rank == root ? sum[0] * sum[1] + exp(0.1 * again) : 0.0;
}

static double bcast_reduce_fd(double *x, void *ctx) { return bcast_reduce(x, *(int *)ctx); }

int main(int argc, char **argv) {
    zyg_mpi_init(&argc, &argv);
    int n = N;
    double x[N], dx[N] = {0};
    for (int i = 0; i < N; i++)
        x[i] = 0.4 + 0.2 * i + 0.07 * zyg_mpi_rank;
    __enzyme_autodiff((void *)bcast_reduce, enzyme_dup, x, dx, enzyme_const, n);
    zyg_mpi_fd("bcast_reduce", bcast_reduce_fd, &n, x, N, dx);
    return zyg_mpi_report();
}
