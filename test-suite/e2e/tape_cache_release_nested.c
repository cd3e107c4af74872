// `__zyg_release_tape_cache()` in a program with nested requests (Hessian-vector products,
// reverse over reverse: the gradient of the gradient's dot product with v): each round of
// requests has its own namespace of tape helpers and its own cache (`zyg` for the inner
// gradient, `zyg1` for the outer), both filled here, and the call frees the calling
// thread's chunks of all of them. The products are checked against central differences
// of the gradient, before and after releases, and heap bytes in use (mallinfo2) show the
// caches emptied.
// RUN: %grad-run -O0 %s %t -I%S/../../include | FileCheck %s
// RUN: %grad-run -O2 %s %t -I%S/../../include | FileCheck %s
// RUN: %plugin-run -O2 %s %t -I%S/../../include | FileCheck %s
// CHECK: ok cached
// CHECK: ok released
// CHECK-NOT: FAIL
// CHECK: ALL OK
#include "zyg/zyg.h"
#include "zyg_check.h"
#include "zyg_heap.h"
#include <string.h>

/* Long enough that both the inner and the outer tapes take many 64 KiB chunks. */
enum { N = 40000 };

static double f(const double *x, int n) {
    double s = 0, c = 1;
    for (int i = 0; i < n; i++) {
        s += c * sin(x[i]);
        c = 0.5 * c + 0.5 * cos(x[i]);
    }
    return s;
}

static void grad(const double *x, double *dx, int n) {
    __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, n);
}

static double gdot(const double *x, const double *v, int n) {
    double *dx = calloc(n, sizeof(double));
    grad(x, dx, n);
    double s = 0;
    for (int i = 0; i < n; i++) s += dx[i] * v[i];
    free(dx);
    return s;
}

static void hvp(const double *x, const double *v, double *hv, int n) {
    memset(hv, 0, sizeof(double) * n);
    __enzyme_autodiff((void *)gdot, enzyme_dup, x, hv, enzyme_const, v, enzyme_const, n);
}

int main(void) {
    double *x = malloc(sizeof(double) * N), *v = malloc(sizeof(double) * N);
    double *hv = malloc(sizeof(double) * N), *first = malloc(sizeof(double) * N);
    double *gp = calloc(N, sizeof(double)), *gm = calloc(N, sizeof(double));
    double *xp = malloc(sizeof(double) * N), *xm = malloc(sizeof(double) * N);
    for (int i = 0; i < N; i++) {
        x[i] = 0.3 * sin(0.01 * i) + 1e-3 * (i % 5);
        v[i] = cos(0.37 * i);
    }
    long before = zyg_heap_in_use();
    hvp(x, v, first, N);
    check_cached(before);
    __zyg_release_tape_cache();
    check_released(before);

    for (int round = 0; round < 2; round++) {
        hvp(x, v, hv, N);
        __zyg_release_tape_cache();
        check_close("same product after release", memcmp(hv, first, sizeof(double) * N) == 0, 1, 0, 0);
    }
    double h = 1e-6;
    for (int i = 0; i < N; i++) {
        xp[i] = x[i] + h * v[i];
        xm[i] = x[i] - h * v[i];
    }
    grad(xp, gp, N);
    grad(xm, gm, N);
    for (int i = 0; i < N; i += N / 8)
        check_close("Hv vs FD of the gradient", first[i], (gp[i] - gm[i]) / (2 * h), FD_RTOL, FD_ATOL);
    check_close("Hv vs FD of the gradient", first[N - 1], (gp[N - 1] - gm[N - 1]) / (2 * h), FD_RTOL, FD_ATOL);
    return zyg_report();
}
