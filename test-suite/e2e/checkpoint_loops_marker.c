// RUN: %grad-run -O0 %s %t -I%S/../../include | FileCheck %s
// RUN: %grad-run -O2 %s %t -I%S/../../include | FileCheck %s
// RUN: %zyg grad -v %t.O2.ll -o %t.v.ll 2>&1 | FileCheck --check-prefix=REPORT %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// The per-request tape budget, `zyg_tape_budget, BYTES` (zyg.h): the request that gives it
// has its long loop checkpointed (segment.rs), as `--tape-budget` would; the other request's
// function keeps its tape. Both against central differences.
//
// REPORT: tape budget 65536 bytes: 1 loops segmented
// REPORT-NOT: plain_steps: loop {{.*}} segmented
// REPORT: budgeted_steps: loop at line {{[0-9]+}} segmented for checkpointing
// REPORT-NOT: plain_steps: loop {{.*}} segmented
#include <string.h>
#include "zyg_check.h"
#include "zyg/zyg.h"

#define M 4

/* Inlined into each: a function both requests reach would be left alone (it is the other's too). */
static inline __attribute__((always_inline)) double run(const double *x0, double a, int n) {
    double *x = malloc(sizeof(double) * M);
    memcpy(x, x0, sizeof(double) * M);
    for (int s = 0; s < n; s++) {
        double y[M];
        for (int i = 0; i < M; i++)
            y[i] = x[i] + 0.01 * (a * sin(x[(i + 1) % M]) * cos(x[(i + 2) % M]) - x[i] * exp(-x[i] * x[i]));
        for (int i = 0; i < M; i++)
            x[i] = y[i];
    }
    double J = x[0] * x[1] - x[2] * x[3];
    free(x);
    return J;
}

__attribute__((noinline)) double budgeted_steps(const double *x0, double a, int n) { return run(x0, a, n) + 1.0; }
__attribute__((noinline)) double plain_steps(const double *x0, double a, int n) { return run(x0, a, n) - 1.0; }

static void check(int budgeted, int n) {
    double x0[M] = {0.3, 0.6, 0.9, 1.2}, dx[M] = {0}, da;
    if (budgeted)
        da = __enzyme_autodiff((void *)budgeted_steps, zyg_tape_budget, (size_t)65536, enzyme_dup, x0, dx, 0.8,
                               enzyme_const, n);
    else
        da = __enzyme_autodiff((void *)plain_steps, enzyme_dup, x0, dx, 0.8, enzyme_const, n);
    char label[64];
    for (int k = 0; k <= M; k++) {
        double xp[M], xm[M], h = 1e-6;
        memcpy(xp, x0, sizeof xp);
        memcpy(xm, x0, sizeof xm);
        double ap = 0.8, am = 0.8;
        if (k < M) {
            xp[k] += h;
            xm[k] -= h;
        } else {
            ap += h;
            am -= h;
        }
        snprintf(label, sizeof label, "%s n=%d d%d", budgeted ? "budgeted" : "plain", n, k);
        check_close(label, k < M ? dx[k] : da, (run(xp, ap, n) - run(xm, am, n)) / (2 * h), 1e-6, 1e-8);
    }
}

int main(void) {
    int ns[] = {3, 40, 2000};
    for (int i = 0; i < 3; i++) {
        check(1, ns[i]);
        check(0, ns[i]);
    }
    return zyg_report();
}
