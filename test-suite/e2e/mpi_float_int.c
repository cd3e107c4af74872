// REQUIRES: mpi
// RUN: %mpi-run 1 -O0 %s %t | FileCheck %s
// RUN: %mpi-run 2 -O0 %s %t | FileCheck %s
// RUN: %mpi-run 4 -O0 %s %t | FileCheck %s
// RUN: %mpi-run 1 -O2 %s %t | FileCheck %s
// RUN: %mpi-run 2 -O2 %s %t | FileCheck %s
// RUN: %mpi-run 4 -O2 %s %t | FileCheck %s
// MPI_FLOAT data (Sendrecv on a ring, Allreduce), beside calls that move no derivative
// inside the differentiated function: MPI_INT reductions and broadcasts of counts into
// heap memory (shadowed, but integers), MPI_Comm_rank, MPI_Barrier (replayed), MPI_Wtime.
// CHECK-NOT: FAIL
// CHECK: ALL OK
#include <stdlib.h>
#include "zyg_mpi_check.h"

#define N 3

float model(float *x, int n) {
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int *counts = malloc(sizeof(int) * 2);
    counts[0] = n;
    counts[1] = rank;
    MPI_Allreduce(MPI_IN_PLACE, counts, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Bcast(counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    float ghost = 0.0f, local = 0.0f, total = 0.0f;
    MPI_Sendrecv(&x[n - 1], 1, MPI_FLOAT, (rank + 1) % size, 4, &ghost, 1, MPI_FLOAT, (rank + size - 1) % size, 4,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < counts[0]; i++)
        local += x[i] * x[i] * ghost + sinf(x[i]);
    MPI_Allreduce(&local, &total, 1, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    free(counts);
    (void)t0;
    return total + x[0] * total;
}

static double model_fd(double *x, void *ctx) {
    float xf[N];
    for (int i = 0; i < N; i++)
        xf[i] = (float)x[i];
    return model(xf, *(int *)ctx);
}

int main(int argc, char **argv) {
    zyg_mpi_init(&argc, &argv);
    int n = N;
    float x[N], dx[N] = {0};
    double xd[N], dxd[N];
    for (int i = 0; i < N; i++)
        x[i] = 0.5f + 0.25f * (float)i + 0.125f * (float)zyg_mpi_rank;
    __enzyme_autodifff((void *)model, enzyme_dup, x, dx, enzyme_const, n);
    for (int i = 0; i < N; i++) {
        xd[i] = x[i];
        dxd[i] = dx[i];
    }
    zyg_mpi_fd_tol("float", model_fd, &n, xd, N, dxd, FLOAT_RTOL, FLOAT_ATOL, ZYG_STEPF);
    return zyg_mpi_report();
}
