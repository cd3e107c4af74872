// REQUIRES: mpi
// RUN: not %mpi-run 2 -O0 %s %t 2>&1 | FileCheck %s
// RUN: not %mpi-run 2 -O2 %s %t 2>&1 | FileCheck %s
// Two requests of one channel (same peer, tag and communicator) waited for in the reverse
// of the order they were started: the reversed messages would match the wrong ones, so
// the gradient stops with a message rather than compute a wrong derivative.
// CHECK: zyg: runtime error: the gradient would post MPI messages in another order
#include "zyg_mpi_check.h"

double swapped(double *x, int n) {
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int peer = (rank + 1) % size, from = (rank + size - 1) % size;
    double a = 0.0, b = 0.0;
    MPI_Request r[4];
    MPI_Irecv(&a, 1, MPI_DOUBLE, from, 0, MPI_COMM_WORLD, &r[0]);
    MPI_Irecv(&b, 1, MPI_DOUBLE, from, 0, MPI_COMM_WORLD, &r[1]);
    MPI_Isend(&x[0], 1, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD, &r[2]);
    MPI_Isend(&x[1], 1, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD, &r[3]);
    MPI_Wait(&r[3], MPI_STATUS_IGNORE);
    MPI_Wait(&r[2], MPI_STATUS_IGNORE);
    MPI_Wait(&r[1], MPI_STATUS_IGNORE);
    MPI_Wait(&r[0], MPI_STATUS_IGNORE);
    return a * b * (1.0 + x[0]) + 3.0 * b;
}

int main(int argc, char **argv) {
    zyg_mpi_init(&argc, &argv);
    double x[2] = {0.5, 1.5}, dx[2] = {0, 0};
    __enzyme_autodiff((void *)swapped, enzyme_dup, x, dx, enzyme_const, 2);
    return zyg_mpi_report();
}
