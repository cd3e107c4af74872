/* Helpers for zyg's MPI end-to-end tests (test-suite/e2e/mpi_*.c, run by bin/mpi-run.sh
 * under mpirun): finite differences of a function every rank computes together, and a
 * verdict gathered to rank 0. Rank 0 prints every comparison; the other ranks print only
 * their failures, so FileCheck sees one `ALL OK` from a good run on any number of ranks.
 *
 * The objective of a test is J = the sum over ranks of what each rank's function returns
 * (each rank's gradient call seeds its own result with 1, so rank r's gradient is dJ/dx_r,
 * derivatives from every rank's result included). zyg_mpi_fd computes dJ/dx_r[k] by
 * central differences: every rank evaluates the function (its MPI calls are collective or
 * paired), and only rank r moves its x[k]. */
#ifndef ZYG_MPI_CHECK_H
#define ZYG_MPI_CHECK_H
#include <mpi.h>
#include "zyg_check.h"

static int zyg_mpi_rank, zyg_mpi_size;

__attribute__((unused)) static void zyg_mpi_init(int *argc, char ***argv) {
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &zyg_mpi_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &zyg_mpi_size);
}

/* check_close, printed on rank 0 (and on any rank where it fails). */
__attribute__((unused)) static void zyg_mpi_close(const char *label, double got, double want, double rtol, double atol) {
    zyg_checks++;
    int ok = fabs(got - want) <= atol + rtol * fabs(want) && got == got;
    if (!ok)
        zyg_failures++;
    if (!ok || zyg_mpi_rank == 0)
        printf("%s %s rank=%d got=%.12g want=%.12g\n", ok ? "ok" : "FAIL", label, zyg_mpi_rank, got, want);
    fflush(stdout);
}

/* J(x) = the sum over ranks of f(x, ctx). */
typedef double (*zyg_mpi_fn)(double *x, void *ctx);
static double zyg_mpi_total(zyg_mpi_fn f, double *x, void *ctx) {
    double mine = f(x, ctx), total = 0.0;
    MPI_Allreduce(&mine, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return total;
}

/* Checks grad[0..n) of every rank (n the same on every rank) against central differences
 * of J, rank by rank, with relative step `step`; x is restored. zyg_mpi_fd: FD_RTOL. */
__attribute__((unused)) static void zyg_mpi_fd_tol(const char *label, zyg_mpi_fn f, void *ctx, double *x, int n,
                                                   const double *grad, double rtol, double atol, double step) {
    for (int owner = 0; owner < zyg_mpi_size; owner++) {
        for (int k = 0; k < n; k++) {
            double keep = x[k], h = step * (fabs(x[k]) > 1.0 ? fabs(x[k]) : 1.0);
            if (zyg_mpi_rank == owner)
                x[k] = keep + h;
            double up = zyg_mpi_total(f, x, ctx);
            if (zyg_mpi_rank == owner)
                x[k] = keep - h;
            double down = zyg_mpi_total(f, x, ctx);
            x[k] = keep;
            if (zyg_mpi_rank == owner)
                zyg_mpi_close(label, grad[k], (up - down) / (2 * h), rtol, atol);
        }
    }
}

__attribute__((unused)) static void zyg_mpi_fd(const char *label, zyg_mpi_fn f, void *ctx, double *x, int n,
                                               const double *grad) {
    zyg_mpi_fd_tol(label, f, ctx, x, n, grad, FD_RTOL, FD_ATOL, 1e-6);
}

/* The verdict, on rank 0: `ALL OK (n checks on p ranks)` or `FAILED f of n`; finalizes MPI
 * and returns main's exit status (on every rank). */
__attribute__((unused)) static int zyg_mpi_report(void) {
    int mine[2] = {zyg_failures, zyg_checks}, all[2] = {0, 0};
    MPI_Allreduce(mine, all, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (zyg_mpi_rank == 0) {
        if (all[0])
            printf("FAILED %d of %d\n", all[0], all[1]);
        else
            printf("ALL OK (%d checks on %d ranks)\n", all[1], zyg_mpi_size);
    }
    MPI_Finalize();
    return all[0] != 0;
}
#endif
