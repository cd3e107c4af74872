// REQUIRES: mpi
// RUN: %mpi-run 1 -O0 %s %t | FileCheck %s
// RUN: %mpi-run 2 -O0 %s %t | FileCheck %s
// RUN: %mpi-run 4 -O0 %s %t | FileCheck %s
// RUN: %mpi-run 1 -O2 %s %t | FileCheck %s
// RUN: %mpi-run 2 -O2 %s %t | FileCheck %s
// RUN: %mpi-run 4 -O2 %s %t | FileCheck %s
// Blocking MPI_Send and MPI_Recv along a chain: rank r receives a vector from r-1 (none on
// rank 0: MPI_PROC_NULL), mixes it with its own, and sends the result on to r+1; each rank
// returns a nonlinear function of what it received and holds. The adjoint sends the
// received vector's adjoint back up the chain. Checked against finite differences of the
// sum over ranks, and on one rank against the serial closed form.
// CHECK-NOT: FAIL
// CHECK: ALL OK
#include "zyg_mpi_check.h"

#define N 4

double chain(double *x, int n) {
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int left = rank > 0 ? rank - 1 : MPI_PROC_NULL, right = rank + 1 < size ? rank + 1 : MPI_PROC_NULL;
    double in[N], out[N];
    for (int i = 0; i < n; i++)
        in[i] = 1.0;
    MPI_Recv(in, n, MPI_DOUBLE, left, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        out[i] = in[i] * cos(x[i]) + x[i] * x[i];
        s += in[i] * x[i];
    }
    MPI_Send(out, n, MPI_DOUBLE, right, 3, MPI_COMM_WORLD);
    return s * s + out[0];
}

static double chain_fd(double *x, void *ctx) { return chain(x, *(int *)ctx); }

int main(int argc, char **argv) {
    zyg_mpi_init(&argc, &argv);
    int n = N;
    double x[N], dx[N] = {0};
    for (int i = 0; i < N; i++)
        x[i] = 0.3 + 0.1 * i - 0.05 * zyg_mpi_rank;
    __enzyme_autodiff((void *)chain, enzyme_dup, x, dx, enzyme_const, n);
    zyg_mpi_fd("chain", chain_fd, &n, x, N, dx);
    if (zyg_mpi_size == 1) {
        /* One rank: in = 1, f = (sum x)^2 + cos(x0) + x0^2. */
        double s = 0.0;
        for (int i = 0; i < N; i++)
            s += x[i];
        for (int i = 0; i < N; i++)
            zyg_mpi_close("serial", dx[i], 2 * s + (i == 0 ? -sin(x[0]) + 2 * x[0] : 0.0), EXACT_RTOL, EXACT_ATOL);
    }
    return zyg_mpi_report();
}
