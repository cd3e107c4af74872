// REQUIRES: mpi
// RUN: %mpi-run 1 -O0 %s %t | FileCheck %s
// RUN: %mpi-run 2 -O0 %s %t | FileCheck %s
// RUN: %mpi-run 4 -O0 %s %t | FileCheck %s
// RUN: %mpi-run 1 -O2 %s %t | FileCheck %s
// RUN: %mpi-run 2 -O2 %s %t | FileCheck %s
// RUN: %mpi-run 4 -O2 %s %t | FileCheck %s
// MPI_Isend and MPI_Irecv on a periodic ring, completed by MPI_Waitall (its requests in
// another order than they were started: zyg starts the reversed messages in reverse
// order itself) and by MPI_Wait in the order started; the request array is heap memory
// in the second function. The adjoint of each wait starts the reversed communication,
// the adjoint of each Isend/Irecv completes it.
// CHECK-NOT: FAIL
// CHECK: ALL OK
#include <stdlib.h>
#include "zyg_mpi_check.h"

#define N 3

double exchange_all(double *x, int n) {
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    double from_left[N], from_right[N], mine[N];
    for (int i = 0; i < n; i++)
        mine[i] = x[i] * x[i] + 0.5 * x[i];
    MPI_Request req[4];
    MPI_Irecv(from_left, n, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &req[0]);
    MPI_Irecv(from_right, n, MPI_DOUBLE, right, 2, MPI_COMM_WORLD, &req[1]);
    MPI_Isend(mine, n, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &req[2]);
    MPI_Isend(x, n, MPI_DOUBLE, left, 2, MPI_COMM_WORLD, &req[3]);
    MPI_Request shuffled[4] = {req[3], req[1], req[0], req[2]};
    MPI_Waitall(4, shuffled, MPI_STATUSES_IGNORE);
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += from_left[i] * sin(x[i]) + from_right[i] * from_right[i] * mine[i];
    return s;
}

double wait_each(double *x, int n) {
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    double *got = malloc(sizeof(double) * n);
    MPI_Request *req = malloc(sizeof(MPI_Request) * 2);
    MPI_Irecv(got, n, MPI_DOUBLE, left, 5, MPI_COMM_WORLD, &req[0]);
    MPI_Isend(x, n, MPI_DOUBLE, right, 5, MPI_COMM_WORLD, &req[1]);
    MPI_Wait(&req[0], MPI_STATUS_IGNORE);
    MPI_Wait(&req[1], MPI_STATUS_IGNORE);
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += exp(0.3 * got[i]) * x[i];
    free(req);
    free(got);
    return s;
}

static double exchange_fd(double *x, void *ctx) { return exchange_all(x, *(int *)ctx); }
static double wait_fd(double *x, void *ctx) { return wait_each(x, *(int *)ctx); }

int main(int argc, char **argv) {
    zyg_mpi_init(&argc, &argv);
    int n = N;
    double x[N], dx[N] = {0};
    for (int i = 0; i < N; i++)
        x[i] = 0.2 + 0.3 * i + 0.1 * zyg_mpi_rank;
    __enzyme_autodiff((void *)exchange_all, enzyme_dup, x, dx, enzyme_const, n);
    zyg_mpi_fd("waitall", exchange_fd, &n, x, N, dx);
    for (int i = 0; i < N; i++)
        dx[i] = 0.0;
    __enzyme_autodiff((void *)wait_each, enzyme_dup, x, dx, enzyme_const, n);
    zyg_mpi_fd("wait", wait_fd, &n, x, N, dx);
    return zyg_mpi_report();
}
