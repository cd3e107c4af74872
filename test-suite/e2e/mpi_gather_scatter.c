// REQUIRES: mpi
// RUN: %mpi-run 1 -O0 %s %t | FileCheck %s
// RUN: %mpi-run 2 -O0 %s %t | FileCheck %s
// RUN: %mpi-run 4 -O0 %s %t | FileCheck %s
// RUN: %mpi-run 1 -O2 %s %t | FileCheck %s
// RUN: %mpi-run 2 -O2 %s %t | FileCheck %s
// RUN: %mpi-run 4 -O2 %s %t | FileCheck %s
// MPI_Scatter, MPI_Gather and MPI_Allgather, each the other's adjoint: the root (rank 0)
// scatters blocks of its x, every rank transforms its block and its own x, the results
// are gathered to the root; and every rank gathers every rank's block with MPI_Allgather.
// CHECK-NOT: FAIL
// CHECK: ALL OK
#include <stdlib.h>
#include "zyg_mpi_check.h"

#define B 2
#define N 8 /* room for B elements per rank, up to 4 ranks */

double scatter_gather(double *x, int n) {
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double block[B], out[B], *all = malloc(sizeof(double) * B * size);
    MPI_Scatter(x, B, MPI_DOUBLE, block, B, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    for (int i = 0; i < B; i++)
        out[i] = block[i] * block[i] * x[n - 1 - i] + cos(x[i]);
    MPI_Gather(out, B, MPI_DOUBLE, all, B, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    double s = 0.0;
    if (rank == 0)
        for (int i = 0; i < B * size; i++)
            s += all[i] * (1.0 + 0.25 * i) + 0.1 * all[i] * all[i];
    free(all);
    return s;
}

double allgather(double *x, int n) {
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double mine[B], all[N];
    for (int i = 0; i < B; i++)
        mine[i] = x[i] * x[i + B];
    MPI_Allgather(mine, B, MPI_DOUBLE, all, B, MPI_DOUBLE, MPI_COMM_WORLD);
    double s = 0.0;
    for (int i = 0; i < B * size; i++)
        s += sin(all[i] + rank) * x[i % n];
    return s;
}

static double scatter_gather_fd(double *x, void *ctx) { return scatter_gather(x, *(int *)ctx); }
static double allgather_fd(double *x, void *ctx) { return allgather(x, *(int *)ctx); }

int main(int argc, char **argv) {
    zyg_mpi_init(&argc, &argv);
    int n = N;
    double x[N], dx[N] = {0};
    for (int i = 0; i < N; i++)
        x[i] = 0.1 * (i + 1) + 0.05 * zyg_mpi_rank;
    __enzyme_autodiff((void *)scatter_gather, enzyme_dup, x, dx, enzyme_const, n);
    zyg_mpi_fd("scatter_gather", scatter_gather_fd, &n, x, N, dx);
    for (int i = 0; i < N; i++)
        dx[i] = 0.0;
    __enzyme_autodiff((void *)allgather, enzyme_dup, x, dx, enzyme_const, n);
    zyg_mpi_fd("allgather", allgather_fd, &n, x, N, dx);
    return zyg_mpi_report();
}
