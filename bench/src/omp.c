/* The parallel family (issue 17): an OpenMP stencil time loop, the case for the adjoint's
 * speedup with the team's size. A nonlinear heat equation on n cells with zero boundaries,
 *   u'_i = u_i + k (u_{i-1} - 2 u_i + u_{i+1}) - c u_i^3,
 * `steps` explicit steps, each a `#pragma omp parallel for` over the cells (buffers swapped
 * between steps); the objective is the sum of the final u_i^2 weighted by the cell. The
 * gradient is with respect to the initial state (n values) and k (the last component).
 *
 * Each case runs with a fixed team (`threads`, set by every call: 1 or 2 on this machine),
 * primal, zyg's gradient and the hand-written one alike. The hand-written adjoint stores every
 * step's state in the forward sweep and runs each step's adjoint as a parallel loop in gather
 * form (cell i collects from i-1, i, i+1 of the later adjoint: no two threads write the same
 * place, no atomics), k's adjoint by a `reduction(+)`. */
#include <omp.h>
#include "bench.h"
#include "../adbench/common.h"

#define OMP_C 0.01

static void omp_step(const double *u, double *v, double k, int n) {
#pragma omp parallel for
    for (int i = 0; i < n; i++) {
        double left = i > 0 ? u[i - 1] : 0, right = i < n - 1 ? u[i + 1] : 0;
        v[i] = u[i] + k * (left - 2 * u[i] + right) - OMP_C * u[i] * u[i] * u[i];
    }
}

/* u (n values) is the initial state, overwritten; v is scratch. */
double omp_heat(double *u, double *v, double k, int n, int steps) {
    for (int s = 0; s < steps; s++) {
        omp_step(u, v, k, n);
        double *w = u;
        u = v;
        v = w;
    }
    double e = 0;
    for (int i = 0; i < n; i++)
        e += u[i] * u[i] * (1.0 + (double)i / n);
    return e;
}

/* The same objective and its gradient (ub: n values, *kb), by hand. */
static double omp_heat_grad(const double *u0, double k, int n, int steps, double *ub, double *kb) {
    double *states = (double *)malloc(sizeof(double) * (size_t)n * (size_t)(steps + 1));
    double *next = (double *)malloc(sizeof(double) * (size_t)n);
    memcpy(states, u0, sizeof(double) * (size_t)n);
    for (int s = 0; s < steps; s++)
        omp_step(states + (size_t)s * n, states + (size_t)(s + 1) * n, k, n);
    const double *u = states + (size_t)steps * n;
    double e = 0;
    for (int i = 0; i < n; i++) {
        e += u[i] * u[i] * (1.0 + (double)i / n);
        ub[i] = 2 * u[i] * (1.0 + (double)i / n);
    }
    double kacc = 0;
    for (int s = steps - 1; s >= 0; s--) {
        const double *x = states + (size_t)s * n;
        double ks = 0;
#pragma omp parallel for reduction(+ : ks)
        for (int i = 0; i < n; i++) {
            double left = i > 0 ? x[i - 1] : 0, right = i < n - 1 ? x[i + 1] : 0;
            ks += ub[i] * (left - 2 * x[i] + right);
            double from_left = i > 0 ? ub[i - 1] : 0, from_right = i < n - 1 ? ub[i + 1] : 0;
            next[i] = ub[i] * (1 - 2 * k - 3 * OMP_C * x[i] * x[i]) + k * (from_left + from_right);
        }
        kacc += ks;
        memcpy(ub, next, sizeof(double) * (size_t)n);
    }
    *kb = kacc;
    free(next);
    free(states);
    return e;
}

typedef struct {
    bench_grad g; /* d/du0 (n values), then d/dk */
    int n, steps, threads;
    double k;
    double *u0, *u, *v, *vb;
} heat_ctx;

void *heat_setup(int n, int steps, int threads, uint64_t seed) {
    heat_ctx *c = (heat_ctx *)calloc(1, sizeof *c);
    c->n = n;
    c->steps = steps;
    c->threads = threads;
    c->k = 0.2;
    bench_grad_init(&c->g, n + 1);
    c->u0 = (double *)malloc(sizeof(double) * (size_t)n);
    c->u = (double *)malloc(sizeof(double) * (size_t)n);
    c->v = (double *)malloc(sizeof(double) * (size_t)n);
    c->vb = (double *)malloc(sizeof(double) * (size_t)n);
    adb_rng r = adb_rng_new(seed);
    for (int i = 0; i < n; i++)
        c->u0[i] = adb_rng_uniform(&r, -1.0, 1.0);
    return c;
}

void heat_free(void *p) {
    heat_ctx *c = (heat_ctx *)p;
    bench_grad_free(&c->g);
    free(c->u0);
    free(c->u);
    free(c->v);
    free(c->vb);
    free(c);
}

double heat_primal(void *p) {
    heat_ctx *c = (heat_ctx *)p;
    omp_set_num_threads(c->threads);
    memcpy(c->u, c->u0, sizeof(double) * (size_t)c->n);
    return omp_heat(c->u, c->v, c->k, c->n, c->steps);
}

double heat_zyg(void *p) {
    heat_ctx *c = (heat_ctx *)p;
    omp_set_num_threads(c->threads);
    memcpy(c->u, c->u0, sizeof(double) * (size_t)c->n);
    bench_zero(c->g.zyg, (size_t)c->n);
    bench_zero(c->vb, (size_t)c->n);
    c->g.zyg[c->n] = ZB_AUTODIFF((void *)omp_heat, enzyme_dup, c->u, c->g.zyg, enzyme_dup, c->v, c->vb, c->k,
                                 enzyme_const, c->n, enzyme_const, c->steps);
    return c->g.zyg[c->n];
}

double heat_hand(void *p) {
    heat_ctx *c = (heat_ctx *)p;
    omp_set_num_threads(c->threads);
    return omp_heat_grad(c->u0, c->k, c->n, c->steps, c->g.hand, &c->g.hand[c->n]);
}
