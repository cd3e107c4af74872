/* A domain-decomposed 1D heat equation, differentiated through MPI with zyg.
 *
 * The model: u_t = k u_xx on `cells` cells with fixed zero ends, explicit steps
 *   u[i] <- u[i] + k (u[i-1] - 2 u[i] + u[i+1]),
 * the cells split into contiguous blocks, one per rank. Each rank keeps one ghost cell on
 * either side of its block and refreshes them every step from its neighbours (a halo
 * exchange with MPI_Isend, MPI_Irecv and MPI_Waitall; MPI_PROC_NULL at the domain's
 * ends). The objective is the energy E = sum of u^2 over the whole domain after `steps`
 * steps, summed to rank 0 with MPI_Reduce.
 *
 * The gradient: every rank calls __enzyme_autodiff on the same function, and zyg's
 * adjoints of the MPI calls communicate again in reverse (the adjoint of the halo's
 * send is a receive of the neighbour's ghost-cell adjoint, the adjoint of the MPI_Reduce
 * a broadcast from rank 0). The result is differentiated on every rank, but only rank 0's
 * result is E (the others return 0), so what the ranks compute together is dE/du0 (each
 * rank its own block of it) and dE/dk, of which each rank holds its share: their sum is
 * dE/dk.
 *
 * The program checks the gradient two ways: rank 0 gathers the initial condition and the
 * gradient and compares them with the gradient of the same computation written without
 * MPI on one process (the serial function below, differentiated by zyg too), and against
 * central differences of E on a few cells (the first and last cells of every rank's block,
 * where the halo carries the derivative across) and k. It prints a verdict and exits 1 if
 * a check fails.
 *
 *   heat [--cells N] [--steps S] [--k K]          check (defaults: 65536 cells, 200 steps)
 *   heat --bench [--repeats R] [--cells N] ...    time the primal and the gradient instead
 *
 * --bench prints the median, over R calls (default 9; one untimed call of each first), of
 * the slowest rank's time for one call of the primal and of the gradient (MPI_Wtime), and
 * their ratio. See README.md beside this file for how it is built and run. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Enzyme's C interface, which zyg implements (zyg grad fills in these calls). */
double __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;

/* ---- The model ---- */

/* One explicit step on cells 1..n of u (u[0] and u[n+1] are the neighbours' values). */
static void diffuse(const double *u, double *v, int n, double k) {
    for (int i = 1; i <= n; i++)
        v[i] = u[i] + k * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
}

/* Fills the ghost cells u[0] and u[n+1] from the left and right neighbours (MPI_PROC_NULL:
 * none, the ghost keeps its zero). The receives are posted first; the four requests are
 * completed together. */
static void exchange_halos(double *u, int n, int left, int right, MPI_Comm comm) {
    MPI_Request req[4];
    MPI_Irecv(&u[0], 1, MPI_DOUBLE, left, 0, comm, &req[0]);
    MPI_Irecv(&u[n + 1], 1, MPI_DOUBLE, right, 1, comm, &req[1]);
    MPI_Isend(&u[n], 1, MPI_DOUBLE, right, 0, comm, &req[2]);
    MPI_Isend(&u[1], 1, MPI_DOUBLE, left, 1, comm, &req[3]);
    MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
}

/* E after `steps` steps from this rank's block u0[0..n) of the initial condition: on rank
 * 0 the energy of the whole domain, on the other ranks 0. */
double heat_energy(const double *u0, double k, int n, int steps) {
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int left = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    int right = rank + 1 < size ? rank + 1 : MPI_PROC_NULL;
    double *u = malloc((n + 2) * sizeof(double)), *v = malloc((n + 2) * sizeof(double));
    u[0] = u[n + 1] = v[0] = v[n + 1] = 0.0;
    for (int i = 0; i < n; i++)
        u[i + 1] = u0[i];
    for (int s = 0; s < steps; s++) {
        exchange_halos(u, n, left, right, MPI_COMM_WORLD);
        diffuse(u, v, n, k);
        double *t = u;
        u = v;
        v = t;
    }
    double local = 0.0, total = 0.0;
    for (int i = 1; i <= n; i++)
        local += u[i] * u[i];
    MPI_Reduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    free(u);
    free(v);
    return rank == 0 ? total : 0.0;
}

/* The same computation on one process, for the whole domain: the reference. */
double heat_energy_serial(const double *u0, double k, int n, int steps) {
    double *u = malloc((n + 2) * sizeof(double)), *v = malloc((n + 2) * sizeof(double));
    u[0] = u[n + 1] = v[0] = v[n + 1] = 0.0;
    for (int i = 0; i < n; i++)
        u[i + 1] = u0[i];
    for (int s = 0; s < steps; s++) {
        diffuse(u, v, n, k);
        double *t = u;
        u = v;
        v = t;
    }
    double e = 0.0;
    for (int i = 1; i <= n; i++)
        e += u[i] * u[i];
    free(u);
    free(v);
    return e;
}

/* ---- The driver ---- */

static int rank, size;
static int failures, checks;

/* The initial condition at global cell g of `cells`: a profile over the whole domain, a
 * wave of 50 cells that the steps damp by about half, and a ripple they wipe out (E must
 * depend on k well enough for finite differences to see it). */
static double initial(int g, int cells) {
    double x = (g + 0.5) / cells;
    return 0.3 * sin(M_PI * x) + sin(2.0 * M_PI * g / 50.0) + 0.2 * sin(0.7 * g);
}

/* check on rank 0: |got - want| <= rtol * scale */
static void check(const char *what, double got, double want, double rtol, double scale) {
    int ok = fabs(got - want) <= rtol * scale; /* false for NaN */
    checks++;
    failures += !ok;
    printf("%-4s %s: zyg %.12g, reference %.12g\n", ok ? "ok" : "FAIL", what, got, want);
}

static int compare_doubles(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The slowest rank's time of each of `repeats` calls of `what` (0: primal, 1: gradient),
 * on rank 0, after one untimed call; returns their median in milliseconds. */
static double time_calls(int what, double *u0, double *du0, double k, int n, int steps, int repeats) {
    double *times = malloc(repeats * sizeof(double));
    for (int r = -1; r < repeats; r++) {
        memset(du0, 0, n * sizeof(double));
        MPI_Barrier(MPI_COMM_WORLD);
        double start = MPI_Wtime();
        if (what == 0)
            heat_energy(u0, k, n, steps);
        else
            __enzyme_autodiff((void *)heat_energy, enzyme_dup, u0, du0, k, enzyme_const, n, enzyme_const, steps);
        double mine = MPI_Wtime() - start, slowest = 0.0;
        MPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        if (r >= 0)
            times[r] = slowest;
    }
    qsort(times, repeats, sizeof(double), compare_doubles);
    double median = repeats % 2 ? times[repeats / 2] : 0.5 * (times[repeats / 2 - 1] + times[repeats / 2]);
    free(times);
    return 1e3 * median;
}

static void usage(void) {
    if (rank == 0)
        fprintf(stderr, "usage: heat [--cells N] [--steps S] [--k K] [--bench] [--repeats R]\n");
    MPI_Finalize();
    exit(2);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int cells = 1 << 16, steps = 200, bench = 0, repeats = 9;
    double k = 0.25;
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--bench"))
            bench = 1;
        else if (a + 1 < argc && !strcmp(argv[a], "--cells"))
            cells = atoi(argv[++a]);
        else if (a + 1 < argc && !strcmp(argv[a], "--steps"))
            steps = atoi(argv[++a]);
        else if (a + 1 < argc && !strcmp(argv[a], "--repeats"))
            repeats = atoi(argv[++a]);
        else if (a + 1 < argc && !strcmp(argv[a], "--k"))
            k = atof(argv[++a]);
        else
            usage();
    }
    if (cells < size || steps < 0 || repeats < 1 || !(k > 0.0 && k <= 0.5)) /* k > 1/2 is unstable */
        usage();

    /* This rank's block: cells [first, first + n), the remainder spread over the first ranks. */
    int base = cells / size, extra = cells % size;
    int n = base + (rank < extra), first = rank * base + (rank < extra ? rank : extra);
    double *u0 = malloc(n * sizeof(double)), *du0 = calloc(n, sizeof(double));
    for (int i = 0; i < n; i++)
        u0[i] = initial(first + i, cells);

    if (bench) {
        double primal = time_calls(0, u0, du0, k, n, steps, repeats);
        double gradient = time_calls(1, u0, du0, k, n, steps, repeats);
        if (rank == 0)
            printf("bench: ranks=%d cells=%d steps=%d repeats=%d primal_ms=%.3f gradient_ms=%.3f ratio=%.2f\n", size,
                   cells, steps, repeats, primal, gradient, gradient / primal);
        free(u0);
        free(du0);
        MPI_Finalize();
        return 0;
    }

    /* The gradient: du0 gets dE/du0 on this rank's block, dk this rank's share of dE/dk. */
    double dk = __enzyme_autodiff((void *)heat_energy, enzyme_dup, u0, du0, k, enzyme_const, n, enzyme_const, steps);
    double e = heat_energy(u0, k, n, steps), dk_total = 0.0;
    MPI_Reduce(&dk, &dk_total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);

    /* Gather the blocks to rank 0 (their sizes differ when size does not divide cells). */
    int *counts = malloc(size * sizeof(int)), *starts = malloc(size * sizeof(int));
    for (int r = 0; r < size; r++) {
        counts[r] = base + (r < extra);
        starts[r] = r * base + (r < extra ? r : extra);
    }
    double *all_u0 = NULL, *all_du0 = NULL;
    if (rank == 0) {
        all_u0 = malloc(cells * sizeof(double));
        all_du0 = malloc(cells * sizeof(double));
    }
    MPI_Gatherv(u0, n, MPI_DOUBLE, all_u0, counts, starts, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    MPI_Gatherv(du0, n, MPI_DOUBLE, all_du0, counts, starts, MPI_DOUBLE, 0, MPI_COMM_WORLD);

    /* 1. Against the serial gradient on rank 0: the same arithmetic cell by cell, so the
     * same numbers up to the order of the energy's sum. */
    if (rank == 0) {
        printf("heat: %d cells on %d ranks, %d steps, k = %g\n", cells, size, steps, k);
        double *serial = calloc(cells, sizeof(double));
        double dk_serial = __enzyme_autodiff((void *)heat_energy_serial, enzyme_dup, all_u0, serial, k, enzyme_const,
                                             cells, enzyme_const, steps);
        double worst = 0.0, largest = 0.0;
        int at = 0;
        for (int g = 0; g < cells; g++) {
            largest = fmax(largest, fabs(serial[g]));
            if (!(fabs(all_du0[g] - serial[g]) <= worst)) { /* NaN counts as the worst */
                worst = fabs(all_du0[g] - serial[g]);
                at = g;
            }
        }
        char what[96];
        snprintf(what, sizeof what, "dE/du0 against the serial gradient (largest difference, at cell %d)", at);
        check(what, all_du0[at], serial[at], 1e-12, largest);
        check("dE/dk against the serial gradient", dk_total, dk_serial, 1e-10, fabs(dk_serial));
        check("E against the serial primal", e, heat_energy_serial(all_u0, k, cells, steps), 1e-12, fabs(e));
        free(serial);
    }

    /* 2. Against central differences of E (every rank takes part in each evaluation; only
     * the rank owning the cell moves it). E is quadratic in u0, so the difference is exact
     * up to rounding whatever the step; in k it is a polynomial of degree 2 steps, hence
     * the small step there. */
    for (int r = 0; r < size; r++) {
        int ends[2] = {starts[r], starts[r] + counts[r] - 1};
        for (int j = 0; j < 2; j++) {
            int g = ends[j];
            if (j == 1 && g == ends[0])
                break;
            double h = 0.5, keep = 0.0;
            int mine = g >= first && g < first + n;
            if (mine) {
                keep = u0[g - first];
                u0[g - first] = keep + h;
            }
            double up = heat_energy(u0, k, n, steps);
            if (mine)
                u0[g - first] = keep - h;
            double down = heat_energy(u0, k, n, steps);
            if (mine)
                u0[g - first] = keep;
            if (rank == 0) {
                char what[64];
                snprintf(what, sizeof what, "dE/du0[%d] (rank %d's %s cell)", g, r, j ? "last" : "first");
                double fd = (up - down) / (2 * h);
                check(what, all_du0[g], fd, 1e-7, fmax(fabs(fd), 1e-2));
            }
        }
    }
    double hk = 1e-6 * k;
    double up = heat_energy(u0, k + hk, n, steps), down = heat_energy(u0, k - hk, n, steps);
    if (rank == 0) {
        double fd = (up - down) / (2 * hk);
        check("dE/dk against central differences", dk_total, fd, 1e-6, fabs(fd));
    }

    int bad = failures;
    MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        if (bad)
            printf("FAILED %d of %d checks on %d ranks\n", failures, checks, size);
        else
            printf("ALL OK (%d checks on %d ranks)\n", checks, size);
    }
    free(u0);
    free(du0);
    free(all_u0);
    free(all_du0);
    free(counts);
    free(starts);
    MPI_Finalize();
    return bad != 0;
}
