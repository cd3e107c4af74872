// REQUIRES: mpi
// RUN: %mpi-run 1 -O0 %s %t | FileCheck %s
// RUN: %mpi-run 2 -O0 %s %t | FileCheck %s
// RUN: %mpi-run 4 -O0 %s %t | FileCheck %s
// RUN: %mpi-run 1 -O2 %s %t | FileCheck %s
// RUN: %mpi-run 2 -O2 %s %t | FileCheck %s
// RUN: %mpi-run 4 -O2 %s %t | FileCheck %s
// A domain-decomposed 1D heat equation, u_t = k u_xx with fixed zero ends, explicit
// steps with a halo exchange (MPI_Sendrecv, MPI_PROC_NULL at the ends), then the energy
// sum u^2 over the whole domain (MPI_Allreduce). The gradient with respect to each rank's
// part of the initial condition and to the diffusion coefficient k (active, the same on
// every rank: its adjoint is each rank's share) is checked against finite differences and
// against the serial program's gradient (no MPI), gathered to rank 0.
// CHECK-NOT: FAIL
// CHECK: ALL OK
#include "zyg_mpi_check.h"

#define L 3       /* cells per rank */
#define STEPS 5
#define MAXG 12   /* up to 4 ranks */

double heat(double *u0, double k, int n) {
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int left = rank > 0 ? rank - 1 : MPI_PROC_NULL, right = rank + 1 < size ? rank + 1 : MPI_PROC_NULL;
    double u[L + 2], v[L + 2];
    u[0] = u[n + 1] = 0.0;
    for (int i = 0; i < n; i++)
        u[i + 1] = u0[i];
    for (int s = 0; s < STEPS; s++) {
        MPI_Sendrecv(&u[n], 1, MPI_DOUBLE, right, 0, &u[0], 1, MPI_DOUBLE, left, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Sendrecv(&u[1], 1, MPI_DOUBLE, left, 1, &u[n + 1], 1, MPI_DOUBLE, right, 1, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        for (int i = 1; i <= n; i++)
            v[i] = u[i] + k * (u[i - 1] - 2 * u[i] + u[i + 1]);
        for (int i = 1; i <= n; i++)
            u[i] = v[i];
    }
    double local = 0.0, total = 0.0;
    for (int i = 1; i <= n; i++)
        local += u[i] * u[i];
    MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return total;
}

/* The same on one process, for the whole domain. */
double heat_serial(double *u0, double k, int n) {
    double u[MAXG + 2], v[MAXG + 2];
    u[0] = u[n + 1] = 0.0;
    for (int i = 0; i < n; i++)
        u[i + 1] = u0[i];
    for (int s = 0; s < STEPS; s++) {
        for (int i = 1; i <= n; i++)
            v[i] = u[i] + k * (u[i - 1] - 2 * u[i] + u[i + 1]);
        for (int i = 1; i <= n; i++)
            u[i] = v[i];
    }
    double e = 0.0;
    for (int i = 1; i <= n; i++)
        e += u[i] * u[i];
    return e;
}

static double k0 = 0.21;
static double heat_fd(double *x, void *ctx) { return heat(x, k0, *(int *)ctx); }
/* x = { k }: every rank moves k together (it is one parameter). */
static double heat_k(double k) {
    int n = L;
    double u0[L];
    for (int i = 0; i < L; i++)
        u0[i] = sin(0.7 * (i + L * zyg_mpi_rank) + 0.3);
    return heat(u0, k, n);
}

int main(int argc, char **argv) {
    zyg_mpi_init(&argc, &argv);
    int n = L;
    double u0[L], du0[L] = {0};
    for (int i = 0; i < L; i++)
        u0[i] = sin(0.7 * (i + L * zyg_mpi_rank) + 0.3);
    double dk = __enzyme_autodiff((void *)heat, enzyme_dup, u0, du0, k0, enzyme_const, n);
    /* Every rank returns the total, so J = size * total: dJ/du0 is size times the serial
     * gradient, and dJ/dk the sum of the ranks' shares. */
    zyg_mpi_fd("du0", heat_fd, &n, u0, L, du0);
    double h = 1e-6, dk_all = 0.0;
    MPI_Allreduce(&dk, &dk_all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    double up = heat_k(k0 + h), down = heat_k(k0 - h);
    if (zyg_mpi_rank == 0)
        zyg_mpi_close("dk", dk_all, zyg_mpi_size * (up - down) / (2 * h), FD_RTOL, FD_ATOL);
    double all_u0[MAXG], all_du0[MAXG];
    MPI_Gather(u0, L, MPI_DOUBLE, all_u0, L, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    MPI_Gather(du0, L, MPI_DOUBLE, all_du0, L, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (zyg_mpi_rank == 0) {
        int g = L * zyg_mpi_size;
        double serial[MAXG] = {0};
        double dk_serial = __enzyme_autodiff((void *)heat_serial, enzyme_dup, all_u0, serial, k0, enzyme_const, g);
        for (int i = 0; i < g; i++)
            zyg_mpi_close("serial du0", all_du0[i], zyg_mpi_size * serial[i], 1e-12, 1e-13);
        zyg_mpi_close("serial dk", dk_all, zyg_mpi_size * dk_serial, 1e-12, 1e-13);
    }
    return zyg_mpi_report();
}
