// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// A struct of arrays held by pointer fields ({double *x, *v; int n;}), as numerical C code
// often passes its state: the struct is built inside the differentiated function and
// handed to a noinline helper by pointer, so the pointers are stored in memory.
#include "zyg_check.h"

typedef struct {
    const double *x;
    const double *v;
    int n;
} state;

__attribute__((noinline)) static double kinetic(const state *s) {
    double e = 0.0;
    for (int i = 0; i < s->n; i++)
        e += 0.5 * s->v[i] * s->v[i] + 0.1 * s->x[i] * s->x[i] * s->x[i];
    return e;
}

double energy(const double *x, const double *v, int n) {
    state s = {x, v, n};
    return kinetic(&s) * 2.0;
}

enum { N = 5 };
static double flat(const double *z) { return energy(z, z + N, N); }

static double fd(double (*g)(const double *), const double *x, int n, int k) {
    double a[64], b[64], h = ZYG_STEP(x[k]);
    for (int i = 0; i < n; i++) a[i] = b[i] = x[i];
    a[k] += h;
    b[k] -= h;
    return (g(a) - g(b)) / (2 * h);
}

int main(void) {
    double pts[2][2 * N] = {{0.5, -0.3, 1.2, 0.8, -1.1, 0.2, 0.9, -0.4, 0.6, -0.7},
                            {-0.9, 0.6, 0.1, -1.4, 0.7, 1.1, -0.3, 0.5, -1.2, 0.25}};
    for (int q = 0; q < 2; q++) {
        double *z = pts[q], x[N], v[N], dx[N] = {0}, dv[N] = {0};
        for (int i = 0; i < N; i++) x[i] = z[i], v[i] = z[N + i];
        __enzyme_autodiff((void *)energy, enzyme_dup, x, dx, enzyme_dup, v, dv, enzyme_const, N);
        for (int k = 0; k < N; k++) {
            check_close("dx", dx[k], fd(flat, z, 2 * N, k), FD_RTOL, FD_ATOL);
            check_close("dv", dv[k], fd(flat, z, 2 * N, N + k), FD_RTOL, FD_ATOL);
        }
    }
    return zyg_report();
}
