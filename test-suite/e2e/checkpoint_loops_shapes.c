// RUN: env ZYG_GRAD_FLAGS=--tape-budget=256KiB %grad-run -O0 %s %t | FileCheck %s
// RUN: env ZYG_GRAD_FLAGS=--tape-budget=256KiB %grad-run -O2 %s %t | FileCheck %s
// RUN: %zyg grad -v --tape-budget 256KiB %t.O2.ll -o %t.v.ll 2>&1 | FileCheck --check-prefix=REPORT %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Shapes of checkpointed loops (segment.rs) under --tape-budget: two time loops in one
// function (each segmented on its own), a loop whose exit depends on the state (it runs until
// the state is small: no trip count known at entry), and one that leaves values (a count and a
// sum) for the code after it. Every gradient against central differences, at several step
// counts around the segments' sizes (32, 1024).
//
// REPORT-DAG: two_phases: loop at line {{[0-9]+}} segmented for checkpointing: `two_phases.zyg.steps.0`
// REPORT-DAG: two_phases: loop at line {{[0-9]+}} segmented for checkpointing: `two_phases.zyg.steps.1`
// REPORT-DAG: until_small: loop at line {{[0-9]+}} segmented for checkpointing
// REPORT-DAG: leaves: loop at line {{[0-9]+}} segmented for checkpointing
#include <string.h>
#include "zyg_check.h"

#define M 5

static void step(double *x, double a, double h) {
    double y[M];
    for (int i = 0; i < M; i++)
        y[i] = x[i] + h * (a * sin(x[(i + 1) % M]) - 0.5 * x[i] * x[(i + 3) % M]);
    for (int i = 0; i < M; i++)
        x[i] = y[i];
}

__attribute__((noinline)) double two_phases(const double *x0, double a, int n1, int n2) {
    double *x = malloc(sizeof(double) * M);
    memcpy(x, x0, sizeof(double) * M);
    for (int s = 0; s < n1; s++)
        step(x, a, 0.01);
    double mid = x[0] * x[1];
    for (int s = 0; s < n2; s++)
        step(x, 2.0 * a + mid, 0.005);
    double J = 0.0;
    for (int i = 0; i < M; i++)
        J += x[i] * x[i];
    free(x);
    return J + mid;
}

/* Damped steps until the state's norm falls under a threshold (at most `cap` steps). */
__attribute__((noinline)) double until_small(const double *x0, double damping, int cap) {
    double *x = malloc(sizeof(double) * M);
    memcpy(x, x0, sizeof(double) * M);
    double norm = 1e300;
    int s = 0;
    while (norm > 1e-3 && s < cap) {
        step(x, 0.1, 0.01);
        norm = 0.0;
        for (int i = 0; i < M; i++) {
            x[i] *= damping;
            norm += x[i] * x[i];
        }
        s++;
    }
    double J = 0.0;
    for (int i = 0; i < M; i++)
        J += sin(x[i]) * (i + 1);
    free(x);
    return J + norm + 0.001 * s;
}

/* Leaves a sum and a count for the code after it. */
__attribute__((noinline)) double leaves(const double *x0, double a, int n) {
    double x[M];
    memcpy(x, x0, sizeof x);
    double acc = 0.0;
    int hits = 0;
    for (int s = 0; s < n; s++) {
        step(x, a, 0.01);
        acc += x[2] * x[3];
        if (x[0] > x[1])
            hits++;
    }
    return acc * (1.0 + 0.01 * hits) + x[4];
}

static double call(int which, const double *x0, double a, int n) {
    switch (which) {
    case 0: return two_phases(x0, a, n, n / 2 + 3);
    case 1: return until_small(x0, a, n);
    default: return leaves(x0, a, n);
    }
}

static void check(int which, int n, double a) {
    const char *names[] = {"two_phases", "until_small", "leaves"};
    double x0[M], dx[M] = {0}, da;
    for (int i = 0; i < M; i++)
        x0[i] = 0.4 + 0.15 * i;
    switch (which) {
    case 0: da = __enzyme_autodiff((void *)two_phases, enzyme_dup, x0, dx, a, enzyme_const, n, enzyme_const, n / 2 + 3); break;
    case 1: da = __enzyme_autodiff((void *)until_small, enzyme_dup, x0, dx, a, enzyme_const, n); break;
    default: {
        da = __enzyme_autodiff((void *)leaves, enzyme_dup, x0, dx, a, enzyme_const, n);
        /* A second request of the same function (the function is segmented once). */
        double da_only = __enzyme_autodiff((void *)leaves, enzyme_const, x0, a, enzyme_const, n);
        check_close("leaves: second request", da_only, da, 1e-12, 1e-14);
        break;
    }
    }
    char label[64];
    for (int k = 0; k <= M; k++) {
        double xp[M], xm[M], ap = a, am = a, h = 1e-6;
        memcpy(xp, x0, sizeof xp);
        memcpy(xm, x0, sizeof xm);
        if (k < M) {
            xp[k] += h;
            xm[k] -= h;
        } else {
            ap += h;
            am -= h;
        }
        double fd = (call(which, xp, ap, n) - call(which, xm, am, n)) / (2 * h);
        snprintf(label, sizeof label, "%s n=%d d%d", names[which], n, k);
        check_close(label, k < M ? dx[k] : da, fd, 2e-6, 1e-8);
    }
}

int main(void) {
    int ns[] = {1, 31, 32, 65, 1030, 3000};
    for (int w = 0; w < 3; w++)
        for (int i = 0; i < 6; i++)
            check(w, ns[i], w == 1 ? 0.999 : 0.7);
    return zyg_report();
}
