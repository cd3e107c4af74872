// RUN: %grad-run -O0 %s %t | tee %t.plain.O0 | FileCheck %s
// RUN: %grad-run -O2 %s %t | tee %t.plain.O2 | FileCheck %s
// RUN: env ZYG_GRAD_FLAGS=--tape-budget=64KiB %grad-run -O0 %s %t.b | tee %t.budget.O0 | FileCheck %s
// RUN: env ZYG_GRAD_FLAGS=--tape-budget=64KiB %grad-run -O2 %s %t.b | tee %t.budget.O2 | FileCheck %s
// RUN: diff %t.plain.O0 %t.budget.O0
// RUN: diff %t.plain.O2 %t.budget.O2
// RUN: %zyg grad -v --tape-budget 1MiB %t.O2.ll -o %t.v.ll 2>&1 | FileCheck --check-prefix=REPORT %s
// RUN: %zyg opt -v %t.O0.ll -o %t.opt.ll --passes='grad,default<O2>' --tape-budget=512KiB 2>&1 | FileCheck --check-prefix=OPT %s
// RUN: not %zyg grad %t.O0.ll -o %t.bad.ll --tape-budget 12XB 2>&1 | FileCheck --check-prefix=BADSIZE %s
// RUN: not %zyg grad %t.O0.ll -o %t.bad.ll --tape-budget 0 2>&1 | FileCheck --check-prefix=ZERO %s
// RUN: %plugin-run -O2 %s %t.plugin -mllvm -zyg-tape-budget=1MiB -mllvm -zyg-verbose=1 2>&1 | FileCheck --check-prefixes=CHECK,PLUGIN %s
// OPT: tape budget 524288 bytes: 3 loops segmented
// PLUGIN: tape budget 1048576 bytes: 3 loops segmented
// BADSIZE: zyg: error: invalid value '12XB' for '--tape-budget <SIZE>': unknown unit `XB` in `12XB` (expected B, KiB, MiB or GiB)
// ZERO: zyg: error: invalid value '0' for '--tape-budget <SIZE>': a tape budget of 0 bytes cannot hold anything
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Checkpointed loops (zyg-transform/src/segment.rs): under --tape-budget, a time-stepping
// loop is cut into segments of up to K0 steps, and segments of up to K1 of those (lengths
// chosen at run time from the budget: e2e/checkpoint_loops_budget.c), whose calls
// are checkpointed: the primal copies the loop's memory at each call, the adjoint reruns one
// segment at a time. The gradients must match finite differences, and be the same bits as
// without a budget (but for the order of an active scalar's sums), for step counts below one
// segment, between the levels and beyond many segments (the first call of a process with
// K0 = 32, later ones with the measured lengths); a loop stepping a state in registers and a
// stack array too; a loop over its caller's memory keeps its tape.
//
// REPORT-DAG: ode: loop at line {{[0-9]+}} segmented for checkpointing: `ode.zyg.steps.0` runs up to K0 iterations, `ode.zyg.segments.0` up to K1 of those; at run time K0 = 262144 / (bytes of tape one iteration took, measured by the adjoint; 32 until measured), at least 1, and K1 = 262144 / (bytes of the loop's memory)
// REPORT-DAG: decay: loop at line {{[0-9]+}} segmented for checkpointing
// REPORT-DAG: in_place: loop at line {{[0-9]+}} taped: it uses a pointer that does not point into memory `in_place` allocates
// REPORT-DAG: forced: loop at line {{[0-9]+}} segmented for checkpointing
// REPORT-DAG: forced: call to forced.zyg.segments.0 (line {{[0-9]+}}) checkpointed
// REPORT-DAG: forced.zyg.segments.0: call to forced.zyg.steps.0 (line {{[0-9]+}}) checkpointed
// REPORT-DAG: forced_out: loop at line {{[0-9]+}} taped: its addresses depend on its iteration (it walks memory that may change rather than stepping a state)
// REPORT-DAG: inner: loop at line {{[0-9]+}} taped: its addresses depend on its iteration
// REPORT-DAG: ode: call to ode.zyg.segments.0 (line {{[0-9]+}}) checkpointed
// REPORT-DAG: ode.zyg.segments.0: call to ode.zyg.steps.0 (line {{[0-9]+}}) checkpointed
#include <string.h>
#include "zyg_check.h"

#define N 6
#define STEPS_MAX 1500

#include "zyg_lorenz96.h"


/* State in registers (the loop's phis) and a stack array; the loop leaves two values. */
double decay(double a, double b, int steps) {
    double v[8] = {a, b, a * b, 1.0, a - b, 0.5, b * b, a};
    double t = 0.0, acc = 0.0;
    for (int s = 0; s < steps; s++) {
        for (int i = 0; i < 8; i++)
            v[i] = v[i] - 0.01 * v[(i + 1) % 8] * sin(v[i] + t);
        acc += v[0] * v[3];
        t += 0.01;
    }
    return acc * t + v[1] * v[2];
}

/* The state is the caller's memory: its size is unknown, so the loop keeps its tape. */
__attribute__((noinline)) void in_place(double *x, int n, int steps) {
    for (int s = 0; s < steps; s++)
        for (int i = 0; i < n; i++)
            x[i] = x[i] + 0.01 * sin(x[(i + 1) % n]);
}

double with_caller_memory(const double *x0, int steps) {
    double x[N];
    memcpy(x, x0, sizeof x);
    in_place(x, N, steps);
    double J = 0.0;
    for (int i = 0; i < N; i++)
        J += x[i] * x[i];
    return J;
}

/* Reads its caller's memory: a forcing per step and coefficients. `forced` writes nothing but
 * its own memory, so during the gradient call nothing changes what its parameters point to:
 * the segments read it where it is (walking `forcing` by the step is fine). */
double forced(const double *x0, const double *forcing, const double *coef, int steps) {
    double *x = malloc(sizeof(double) * N);
    memcpy(x, x0, sizeof(double) * N);
    for (int s = 0; s < steps; s++) {
        double f = forcing[s];
        double next[N];
        for (int i = 0; i < N; i++)
            next[i] = x[i] + 0.01 * (coef[i] * sin(x[wrap(i + 1)]) - x[i] + f);
        for (int i = 0; i < N; i++)
            x[i] = next[i];
    }
    double J = 0.0;
    for (int i = 0; i < N; i++)
        J += x[i] * x[i] * coef[i];
    free(x);
    return J;
}

/* A loop like it, but the function also writes its result through a parameter: another
 * pointer could alias the forcing, so the loop keeps its tape. */
void forced_out(const double *x0, const double *forcing, const double *coef, int steps, double *out) {
    *out = 0.0;
    double x[N];
    memcpy(x, x0, sizeof x);
    for (int s = 0; s < steps; s++)
        for (int i = 0; i < N; i++)
            x[i] = x[i] + 0.01 * (coef[i] * cos(x[wrap(i + 2)]) * exp(-x[i] * x[i]) + forcing[s] * sin(x[i]));
    for (int i = 0; i < N; i++)
        *out += x[i];
}

/* Requested alone, `inner` could read its parameter's memory in place; but `outer` calls it
 * and then overwrites that memory before the adjoint reruns anything: `inner`'s loop must
 * keep its tape (or copy). */
double inner(const double *a, int steps) {
    double v[4] = {1.0, 0.5, 0.25, 0.125};
    for (int s = 0; s < steps; s++)
        for (int i = 0; i < 4; i++)
            v[i] = v[i] + 0.01 * sin(a[s] * v[(i + 1) % 4]) * cos(v[i]) * exp(-v[i] * a[s]);
    return v[0] + v[1] * v[2] * v[3];
}

double outer(double *a, int steps) {
    double r = inner(a, steps);
    for (int s = 0; s < steps; s++)
        a[s] = 0.0;
    return r;
}

static void check_reused(int steps) {
    static double a[STEPS_MAX], da[STEPS_MAX], b[STEPS_MAX];
    for (int s = 0; s < steps; s++) {
        a[s] = 0.5 + 0.25 * cos(0.3 * s);
        da[s] = 0.0;
    }
    __enzyme_autodiff((void *)inner, enzyme_dup, a, da, enzyme_const, steps);
    for (int s = 0; s < steps; s++)
        da[s] = 0.0;
    __enzyme_autodiff((void *)outer, enzyme_dup, a, da, enzyme_const, steps);
    for (int s = 0; s < steps; s++)
        a[s] = 0.5 + 0.25 * cos(0.3 * s);
    int picks[3] = {0, steps / 2, steps - 1};
    for (int p = 0; p < 3; p++) {
        int k = picks[p];
        memcpy(b, a, sizeof(double) * steps);
        double h = 1e-6;
        b[k] = a[k] + h;
        double up = inner(b, steps);
        b[k] = a[k] - h;
        double down = inner(b, steps);
        char label[64];
        snprintf(label, sizeof label, "outer steps=%d a[%d]", steps, k);
        check_close(label, da[k], (up - down) / (2 * h), 1e-6, 1e-8);
    }
}

static double ode_at(const double *x0, double F, int steps, int k, double h) {
    double x[N];
    memcpy(x, x0, sizeof x);
    if (k < N)
        x[k] += h;
    else
        F += h;
    return ode(x, F, steps);
}

static void check_ode(int steps) {
    double x0[N], dx[N] = {0};
    for (int i = 0; i < N; i++)
        x0[i] = 8.0 + 0.3 * i - 0.1 * (steps % 7);
    double F = 8.0;
    double dF = __enzyme_autodiff((void *)ode, enzyme_dup, x0, dx, F, enzyme_const, steps);
    char label[64];
    for (int k = 0; k <= N; k++) {
        double h = 1e-6 * (k < N ? fabs(x0[k]) : F);
        double fd = (ode_at(x0, F, steps, k, h) - ode_at(x0, F, steps, k, -h)) / (2 * h);
        snprintf(label, sizeof label, "ode steps=%d d%d", steps, k);
        check_close(label, k < N ? dx[k] : dF, fd, 1e-5, 1e-7);
        /* The shadow memory's sums are the same bits with and without segments; an active
         * scalar's partial sums are added per segment, in another order (12 digits). */
        if (k < N)
            printf("BITS %s %a\n", label, dx[k]);
        else
            printf("BITS %s %.12e\n", label, dF);
    }
}

static double decay_a(double a, double b, int steps) { return decay(a, b, steps); }

static void check_decay(int steps, double a, double b) {
    zyg_grad2 g = __enzyme_autodiff2((void *)decay, a, b, enzyme_const, steps);
    double ha = 1e-6 * fabs(a), hb = 1e-6 * fabs(b);
    char label[64];
    snprintf(label, sizeof label, "decay steps=%d da", steps);
    check_close(label, g.d0, (decay_a(a + ha, b, steps) - decay_a(a - ha, b, steps)) / (2 * ha), 1e-6, 1e-8);
    printf("BITS %s %a\n", label, g.d0);
    snprintf(label, sizeof label, "decay steps=%d db", steps);
    check_close(label, g.d1, (decay_a(a, b + hb, steps) - decay_a(a, b - hb, steps)) / (2 * hb), 1e-6, 1e-8);
    printf("BITS %s %a\n", label, g.d1);
}

static void check_caller_memory(int steps) {
    double x0[N], dx[N] = {0};
    for (int i = 0; i < N; i++)
        x0[i] = 0.5 + 0.25 * i;
    __enzyme_autodiff((void *)with_caller_memory, enzyme_dup, x0, dx, enzyme_const, steps);
    for (int k = 0; k < N; k++) {
        double xp[N], xm[N], h = 1e-6;
        memcpy(xp, x0, sizeof xp);
        memcpy(xm, x0, sizeof xm);
        xp[k] += h;
        xm[k] -= h;
        char label[64];
        snprintf(label, sizeof label, "caller memory steps=%d d%d", steps, k);
        check_close(label, dx[k], (with_caller_memory(xp, steps) - with_caller_memory(xm, steps)) / (2 * h), 1e-6, 1e-8);
    }
}

static double forcing[STEPS_MAX], coef[N];

static double forced_out_value(const double *x0, const double *fo, const double *co, int steps) {
    double out;
    forced_out(x0, fo, co, steps, &out);
    return out;
}

/* d/dx0, d/dforcing and d/dcoef of `forced` (or `forced_out`) against central differences
 * in a few components. */
static void check_forced(int steps, int out) {
    static double dforcing[STEPS_MAX];
    double x0[N], dx[N] = {0}, dcoef[N] = {0};
    for (int i = 0; i < N; i++) {
        x0[i] = 0.3 + 0.2 * i;
        coef[i] = 1.0 + 0.1 * i;
    }
    for (int s = 0; s < steps; s++) {
        forcing[s] = 0.5 * sin(0.1 * s);
        dforcing[s] = 0.0;
    }
    if (out) {
        double res = 0.0, dres = 1.0;
        __enzyme_autodiff((void *)forced_out, enzyme_dup, x0, dx, enzyme_dup, forcing, dforcing, enzyme_dup, coef, dcoef,
                          enzyme_const, steps, enzyme_dup, &res, &dres);
    } else {
        __enzyme_autodiff((void *)forced, enzyme_dup, x0, dx, enzyme_dup, forcing, dforcing, enzyme_dup, coef, dcoef,
                          enzyme_const, steps);
    }
    double (*f)(const double *, const double *, const double *, int) = out ? forced_out_value : forced;
    double *which[3] = {x0, forcing, coef}, *grads[3] = {dx, dforcing, dcoef};
    int picks[3][3] = {{0, 3, N - 1}, {0, steps / 2, steps - 1}, {0, 2, N - 1}};
    for (int w = 0; w < 3; w++)
        for (int p = 0; p < 3; p++) {
            int k = picks[w][p];
            double keep = which[w][k], h = 1e-6 * (fabs(keep) > 1 ? fabs(keep) : 1);
            which[w][k] = keep + h;
            double up = f(x0, forcing, coef, steps);
            which[w][k] = keep - h;
            double down = f(x0, forcing, coef, steps);
            which[w][k] = keep;
            char label[64];
            snprintf(label, sizeof label, "%s steps=%d arg%d[%d]", out ? "forced_out" : "forced", steps, w, k);
            check_close(label, grads[w][k], (up - down) / (2 * h), 1e-6, 1e-8);
            /* The coefficients are loaded before the loop: active scalars (see check_ode). */
            if (w < 2)
                printf("BITS %s %a\n", label, grads[w][k]);
            else
                printf("BITS %s %.12e\n", label, grads[w][k]);
        }
}

int main(void) {
    int counts[] = {1, 5, 32, 33, 100, 1024, 1100, 2500};
    for (int i = 0; i < (int)(sizeof counts / sizeof *counts); i++)
        check_ode(counts[i]);
    check_decay(0, 0.7, 1.3);
    check_decay(3, 0.7, 1.3);
    check_decay(64, 1.1, -0.4);
    check_decay(1500, 0.9, 0.6);
    check_caller_memory(40);
    check_forced(7, 0);
    check_forced(1500, 0);
    check_forced(300, 1);
    check_reused(700);
    return zyg_report();
}
