// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// A problem struct holding pointers to its data ({double *x, *w; int n;}) passed by dup
// pointer with Enzyme's convention: the caller's shadow struct holds the shadow pointers
// (dx, dw) at the same places, and the gradient lands in the arrays they point to.
#include "zyg_check.h"

typedef struct {
    const double *x;
    const double *w;
    int n;
} problem;

double objective(const problem *p) {
    double s = 0.0;
    for (int i = 0; i < p->n; i++)
        s += p->w[i] * p->x[i] * p->x[i] + sin(p->x[i] * p->w[i]);
    for (int i = 0; i + 1 < p->n; i++)
        s += 0.5 * (p->x[i + 1] - p->x[i]) * (p->x[i + 1] - p->x[i]);
    return s;
}

enum { N = 5 };
/* z = (x, w) */
static double flat(const double *z) {
    problem p = {z, z + N, N};
    return objective(&p);
}

static double fd(double (*g)(const double *), const double *x, int n, int k) {
    double a[64], b[64], h = ZYG_STEP(x[k]);
    for (int i = 0; i < n; i++) a[i] = b[i] = x[i];
    a[k] += h;
    b[k] -= h;
    return (g(a) - g(b)) / (2 * h);
}

int main(void) {
    double pts[2][2 * N] = {{0.5, -1.0, 2.0, 0.3, -0.6, 1.0, 0.5, -0.3, 1.2, 0.8},
                            {-1.1, 0.4, 0.9, -0.2, 1.5, 0.2, -0.7, 1.1, 0.6, -0.4}};
    for (int q = 0; q < 2; q++) {
        double x[N], w[N], dx[N] = {0}, dw[N] = {0};
        for (int i = 0; i < N; i++) x[i] = pts[q][i], w[i] = pts[q][N + i];
        problem p = {x, w, N}, dp = {dx, dw, N};
        __enzyme_autodiff((void *)objective, enzyme_dup, &p, &dp);
        for (int k = 0; k < N; k++) {
            check_close("dx", dx[k], fd(flat, pts[q], 2 * N, k), FD_RTOL, FD_ATOL);
            check_close("dw", dw[k], fd(flat, pts[q], 2 * N, N + k), FD_RTOL, FD_ATOL);
        }
        check_close("shadow struct's pointers unchanged", dp.x == dx && dp.w == dw, 1, 0, 0);
    }
    return zyg_report();
}
