// REQUIRES: mpi
// RUN: %mpi-run 1 -O0 %s %t | FileCheck %s
// RUN: %mpi-run 2 -O0 %s %t | FileCheck %s
// RUN: %mpi-run 4 -O0 %s %t | FileCheck %s
// RUN: %mpi-run 1 -O2 %s %t | FileCheck %s
// RUN: %mpi-run 2 -O2 %s %t | FileCheck %s
// RUN: %mpi-run 4 -O2 %s %t | FileCheck %s
// MPI_Sendrecv on a periodic ring (one rank exchanges with itself): each rank sends its
// last element right and its first left, receives the neighbours' into ghost cells, and
// returns a smoothed energy. Two exchanges in a loop, so the adjoint's reversed messages
// must match in order.
// CHECK-NOT: FAIL
// CHECK: ALL OK
#include "zyg_mpi_check.h"

#define N 4

double ring(double *x, int n) {
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    double u[N + 2];
    for (int i = 0; i < n; i++)
        u[i + 1] = x[i];
    double e = 0.0;
    for (int step = 0; step < 2; step++) {
        MPI_Sendrecv(&u[n], 1, MPI_DOUBLE, right, 7, &u[0], 1, MPI_DOUBLE, left, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Sendrecv(&u[1], 1, MPI_DOUBLE, left, 8, &u[n + 1], 1, MPI_DOUBLE, right, 8, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        double next[N + 2];
        for (int i = 1; i <= n; i++)
            next[i] = u[i] + 0.2 * (u[i - 1] - 2 * u[i] + u[i + 1]) + 0.1 * sin(u[i]);
        for (int i = 1; i <= n; i++) {
            u[i] = next[i];
            e += u[i] * u[i] * (step + 1);
        }
    }
    return e;
}

static double ring_fd(double *x, void *ctx) { return ring(x, *(int *)ctx); }

int main(int argc, char **argv) {
    zyg_mpi_init(&argc, &argv);
    int n = N;
    double x[N], dx[N] = {0};
    for (int i = 0; i < N; i++)
        x[i] = sin(1.0 + i + N * zyg_mpi_rank);
    __enzyme_autodiff((void *)ring, enzyme_dup, x, dx, enzyme_const, n);
    zyg_mpi_fd("ring", ring_fd, &n, x, N, dx);
    return zyg_mpi_report();
}
