// REQUIRES: mpi
// RUN: %mpi-run 1 -O0 %s %t | FileCheck %s
// RUN: %mpi-run 2 -O0 %s %t | FileCheck %s
// RUN: %mpi-run 4 -O0 %s %t | FileCheck %s
// RUN: %mpi-run 1 -O2 %s %t | FileCheck %s
// RUN: %mpi-run 2 -O2 %s %t | FileCheck %s
// RUN: %mpi-run 4 -O2 %s %t | FileCheck %s
// Nonblocking requests across function boundaries: a callee posts a halo exchange
// (MPI_Irecv, MPI_Isend) into its caller's request array and returns; the caller
// computes, then completes the requests with MPI_Waitall, in a time loop. The requests'
// records travel in the shadow of the request array, which the callee receives as a
// pointer argument.
// CHECK-NOT: FAIL
// CHECK: ALL OK
#include "zyg_mpi_check.h"

#define N 4

static void post_halo(double *u, int n, MPI_Request *req) {
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    MPI_Irecv(&u[0], 1, MPI_DOUBLE, left, 0, MPI_COMM_WORLD, &req[0]);
    MPI_Irecv(&u[n + 1], 1, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &req[1]);
    MPI_Isend(&u[n], 1, MPI_DOUBLE, right, 0, MPI_COMM_WORLD, &req[2]);
    MPI_Isend(&u[1], 1, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &req[3]);
}

double simulate(double *x, int n) {
    double u[N + 2], v[N + 2];
    for (int i = 0; i < n; i++)
        u[i + 1] = x[i];
    MPI_Request req[4];
    for (int step = 0; step < 3; step++) {
        post_halo(u, n, req);
        MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
        for (int i = 1; i <= n; i++)
            v[i] = u[i] + 0.15 * (u[i - 1] - 2 * u[i] + u[i + 1]) - 0.05 * u[i] * u[i];
        for (int i = 1; i <= n; i++)
            u[i] = v[i];
    }
    double e = 0.0;
    for (int i = 1; i <= n; i++)
        e += u[i] * u[i] * u[i];
    return e;
}

static double simulate_fd(double *x, void *ctx) { return simulate(x, *(int *)ctx); }

int main(int argc, char **argv) {
    zyg_mpi_init(&argc, &argv);
    int n = N;
    double x[N], dx[N] = {0};
    for (int i = 0; i < N; i++)
        x[i] = 0.5 + 0.4 * sin(1.3 * (i + N * zyg_mpi_rank));
    __enzyme_autodiff((void *)simulate, enzyme_dup, x, dx, enzyme_const, n);
    zyg_mpi_fd("simulate", simulate_fd, &n, x, N, dx);
    return zyg_mpi_report();
}
