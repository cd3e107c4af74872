/* A long time-stepping ODE (issue 16's checkpointing case): the Lorenz-96 system of n = 32
 * variables on a ring, dx_i/dt = (x_{i+1} - x_{i-2}) x_{i-1} - x_i + F, integrated by classical
 * RK4 over the time T = 2 in `steps` steps (10^4 or 10^5). The objective is half the squared
 * norm of the final state; the gradient is with respect to the initial state (n values) and the
 * forcing F (the last component).
 *
 * As in real codes, the state and the stages live in memory arrays (allocated by the
 * integrator, overwritten every step) and the stepping functions take pointers, so a reverse
 * pass has to keep or recompute every step's state.
 *
 * F = 8 is the usual chaotic forcing. The interval is short (T times the largest Lyapunov
 * exponent, about 1.7, is 3.4), so perturbations grow by a factor of order 100 at most: the gradient's components are between 0.1 and 100, rounding differences between two
 * correct adjoints stay far below the check's tolerance, and the gradient with respect to the
 * initial state is not dwarfed by the one with respect to F (as it is in a stable regime, where
 * the state forgets where it started).
 *
 * The hand-written adjoint is checkpointed by hand, two levels: the forward sweep stores the
 * state every C = ceil(sqrt(steps)) steps; the reverse sweep, segment by segment from the last,
 * reruns the segment from its checkpoint storing each step's input state, then runs the steps'
 * adjoints backwards, each recomputing its four stages from its input state. Memory
 * (steps / C + C) n doubles (about 160 KiB at 10^5 steps, under the 1 MiB budget); cost
 * about two primals (forward and rerun) plus one step adjoint per step. */
#include "bench.h"
#include "../adbench/common.h"

#define ODE_F 8.0
#define ODE_T 2.0

static int ode_wrap(int i, int n) { return i < 0 ? i + n : i >= n ? i - n : i; }

/* dx = f(x) for the Lorenz-96 right-hand side with forcing F */
static void l96_rhs(const double *x, double F, int n, double *dx) {
    for (int i = 0; i < n; i++) {
        double xp1 = x[ode_wrap(i + 1, n)], xm1 = x[ode_wrap(i - 1, n)], xm2 = x[ode_wrap(i - 2, n)];
        dx[i] = (xp1 - xm2) * xm1 - x[i] + F;
    }
}

/* one RK4 step of x in place; k1..k4 and y are scratch arrays of n values */
static void rk4_step(double *x, double F, double dt, int n, double *k1, double *k2, double *k3, double *k4,
                     double *y) {
    l96_rhs(x, F, n, k1);
    for (int i = 0; i < n; i++)
        y[i] = x[i] + 0.5 * dt * k1[i];
    l96_rhs(y, F, n, k2);
    for (int i = 0; i < n; i++)
        y[i] = x[i] + 0.5 * dt * k2[i];
    l96_rhs(y, F, n, k3);
    for (int i = 0; i < n; i++)
        y[i] = x[i] + dt * k3[i];
    l96_rhs(y, F, n, k4);
    for (int i = 0; i < n; i++)
        x[i] += dt / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
}

/* 0.5 |x(T)|^2 for x(0) = x0, by `steps` RK4 steps of dt */
double ode_objective(const double *x0, double F, int n, int steps, double dt) {
    double *work = (double *)malloc(sizeof(double) * 6 * (size_t)n);
    double *x = work, *k1 = x + n, *k2 = k1 + n, *k3 = k2 + n, *k4 = k3 + n, *y = k4 + n;
    memcpy(x, x0, sizeof(double) * (size_t)n);
    for (int s = 0; s < steps; s++)
        rk4_step(x, F, dt, n, k1, k2, k3, k4, y);
    double J = 0.0;
    for (int i = 0; i < n; i++)
        J += 0.5 * x[i] * x[i];
    free(work);
    return J;
}

/* yb = f'(y)^T w and Fb += sum w: the vector-Jacobian product of l96_rhs at y */
static void l96_rhs_adj(const double *y, const double *w, int n, double *yb, double *Fb) {
    for (int i = 0; i < n; i++)
        yb[i] = 0.0;
    for (int i = 0; i < n; i++) {
        int ip1 = ode_wrap(i + 1, n), im1 = ode_wrap(i - 1, n), im2 = ode_wrap(i - 2, n);
        yb[ip1] += w[i] * y[im1];
        yb[im2] -= w[i] * y[im1];
        yb[im1] += w[i] * (y[ip1] - y[im2]);
        yb[i] -= w[i];
        *Fb += w[i];
    }
}

/* The adjoint of one rk4_step from its input state x: on entry xb is the adjoint of the step's
 * output, on return of its input; Fb accumulates. The stages are recomputed from x. `w` is
 * scratch of 11 n values. */
static void rk4_step_adj(const double *x, double F, double dt, int n, double *xb, double *Fb, double *w) {
    double *k1 = w, *k2 = k1 + n, *k3 = k2 + n, *y2 = k3 + n, *y3 = y2 + n, *y4 = y3 + n;
    double *kb1 = y4 + n, *kb2 = kb1 + n, *kb3 = kb2 + n, *kb4 = kb3 + n, *yb = kb4 + n;
    l96_rhs(x, F, n, k1);
    for (int i = 0; i < n; i++)
        y2[i] = x[i] + 0.5 * dt * k1[i];
    l96_rhs(y2, F, n, k2);
    for (int i = 0; i < n; i++)
        y3[i] = x[i] + 0.5 * dt * k2[i];
    l96_rhs(y3, F, n, k3);
    for (int i = 0; i < n; i++)
        y4[i] = x[i] + dt * k3[i];
    /* x' = x + dt/6 (k1 + 2 k2 + 2 k3 + k4): xb passes through, each stage gets its share */
    for (int i = 0; i < n; i++) {
        kb1[i] = dt / 6.0 * xb[i];
        kb2[i] = dt / 3.0 * xb[i];
        kb3[i] = dt / 3.0 * xb[i];
        kb4[i] = dt / 6.0 * xb[i];
    }
    /* k4 = f(y4), y4 = x + dt k3 */
    l96_rhs_adj(y4, kb4, n, yb, Fb);
    for (int i = 0; i < n; i++) {
        xb[i] += yb[i];
        kb3[i] += dt * yb[i];
    }
    /* k3 = f(y3), y3 = x + dt/2 k2 */
    l96_rhs_adj(y3, kb3, n, yb, Fb);
    for (int i = 0; i < n; i++) {
        xb[i] += yb[i];
        kb2[i] += 0.5 * dt * yb[i];
    }
    /* k2 = f(y2), y2 = x + dt/2 k1 */
    l96_rhs_adj(y2, kb2, n, yb, Fb);
    for (int i = 0; i < n; i++) {
        xb[i] += yb[i];
        kb1[i] += 0.5 * dt * yb[i];
    }
    /* k1 = f(x) */
    l96_rhs_adj(x, kb1, n, yb, Fb);
    for (int i = 0; i < n; i++)
        xb[i] += yb[i];
}

/* ode_objective and its gradient (x0b: n values, *Fb), checkpointed as the header says */
static double ode_objective_grad(const double *x0, double F, int n, int steps, double dt, double *x0b, double *Fb) {
    int C = (int)ceil(sqrt((double)steps));
    int segments = (steps + C - 1) / C;
    double *checkpoints = (double *)malloc(sizeof(double) * (size_t)segments * n);
    double *states = (double *)malloc(sizeof(double) * (size_t)C * n);
    double *work = (double *)malloc(sizeof(double) * 17 * (size_t)n);
    double *x = work, *k1 = x + n, *k2 = k1 + n, *k3 = k2 + n, *k4 = k3 + n, *y = k4 + n, *scratch = y + n;

    memcpy(x, x0, sizeof(double) * (size_t)n);
    for (int s = 0; s < steps; s++) {
        if (s % C == 0)
            memcpy(checkpoints + (size_t)(s / C) * n, x, sizeof(double) * (size_t)n);
        rk4_step(x, F, dt, n, k1, k2, k3, k4, y);
    }
    double J = 0.0;
    for (int i = 0; i < n; i++) {
        J += 0.5 * x[i] * x[i];
        x0b[i] = x[i]; /* the adjoint of the final state */
    }
    *Fb = 0.0;
    for (int g = segments - 1; g >= 0; g--) {
        int len = steps - g * C < C ? steps - g * C : C;
        memcpy(x, checkpoints + (size_t)g * n, sizeof(double) * (size_t)n);
        for (int t = 0; t < len; t++) {
            memcpy(states + (size_t)t * n, x, sizeof(double) * (size_t)n);
            if (t + 1 < len)
                rk4_step(x, F, dt, n, k1, k2, k3, k4, y);
        }
        for (int t = len - 1; t >= 0; t--)
            rk4_step_adj(states + (size_t)t * n, F, dt, n, x0b, Fb, scratch);
    }
    free(checkpoints);
    free(states);
    free(work);
    return J;
}

typedef struct {
    bench_grad g; /* d/dx0 (n values), then d/dF */
    int n, steps;
    double dt, F;
    double *x0;
} ode_ctx;

void *ode_setup(int n, int steps, uint64_t seed) {
    ode_ctx *c = (ode_ctx *)calloc(1, sizeof *c);
    c->n = n;
    c->steps = steps;
    c->dt = ODE_T / steps;
    c->F = ODE_F;
    bench_grad_init(&c->g, n + 1);
    c->x0 = (double *)malloc(sizeof(double) * (size_t)n);
    adb_rng r = adb_rng_new(seed);
    for (int i = 0; i < n; i++)
        c->x0[i] = adb_rng_uniform(&r, -2.0, 2.0);
    return c;
}

void ode_free(void *p) {
    ode_ctx *c = (ode_ctx *)p;
    bench_grad_free(&c->g);
    free(c->x0);
    free(c);
}

double ode_primal(void *p) {
    ode_ctx *c = (ode_ctx *)p;
    return ode_objective(c->x0, c->F, c->n, c->steps, c->dt);
}

double ode_zyg(void *p) {
    ode_ctx *c = (ode_ctx *)p;
    bench_zero(c->g.zyg, (size_t)c->n);
    c->g.zyg[c->n] = ZB_AUTODIFF((void *)ode_objective, enzyme_dup, c->x0, c->g.zyg, c->F, enzyme_const, c->n,
                                 enzyme_const, c->steps, enzyme_const, c->dt);
    return c->g.zyg[c->n];
}

double ode_hand(void *p) {
    ode_ctx *c = (ode_ctx *)p;
    return ode_objective_grad(c->x0, c->F, c->n, c->steps, c->dt, c->g.hand, &c->g.hand[c->n]);
}
