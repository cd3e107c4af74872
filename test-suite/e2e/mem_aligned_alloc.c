// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// RUN: %grad-run -O3 %s %t.v3 %march-v3 | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Aligned heap memory as scratch: posix_memalign (memory handed back through a `void **`,
// also from a wrapper that returns it), aligned_alloc, memalign and valloc. Each gets a
// zeroed shadow as aligned as the memory (at -O2 clang's vector loads and stores through
// `__builtin_assume_aligned` pointers are copied to the shadow with their alignment), freed
// with the memory's `free`. Reverse mode against central differences, forward mode (each
// direction a unit vector) against the reverse gradient's components, at several points.
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include "zyg_check.h"

#define N 9

/* posix_memalign's memory, returned by a wrapper (a function returning memory of its own). */
static double *scratch(int n) {
    void *p = 0;
    if (posix_memalign(&p, 64, (size_t)n * sizeof(double)) != 0)
        return 0;
    return p;
}

static double loss(const double *x, int n) {
    double *a = scratch(n);
    void *q = 0;
    if (!a || posix_memalign(&q, 32, (size_t)n * sizeof(double)) != 0)
        return 0;
    double *b = __builtin_assume_aligned(q, 32);
    double *c = __builtin_assume_aligned(aligned_alloc(64, 128), 64);
    double *d = memalign(128, (size_t)n * sizeof(double));
    double *e = valloc((size_t)n * sizeof(double));
    for (int i = 0; i < n; i++) {
        a[i] = x[i] * x[i];
        b[i] = sin(x[i]) + a[i];
        d[i] = b[i] * x[(i + 1) % n];
    }
    for (int i = 0; i < n; i++)
        c[i] = a[i] * b[i] + d[i];
    for (int i = 0; i < n; i++)
        e[i] = c[i] * (i + 1) - a[(i + 2) % n];
    double s = 0;
    for (int i = 0; i < n; i++)
        s += e[i] * e[i] * 0.125 + c[i];
    free(a);
    free(q);
    free(c);
    free(d);
    free(e);
    return s;
}

/* The alignments the program asked for hold, so that the shadows' do is what matters. */
static int aligned_as_asked(void) {
    void *p = 0;
    int ok = posix_memalign(&p, 256, 40) == 0 && (uintptr_t)p % 256 == 0;
    free(p);
    /* POSIX: an alignment that is not a power of two of at least sizeof(void *) is EINVAL. */
    return ok && posix_memalign(&p, 24, 40) != 0;
}

static double loss_ctx(const double *x, void *ctx) {
    (void)ctx;
    return loss(x, N);
}

int main(void) {
    double points[3][N] = {{0.3, -0.5, 0.8, 1.1, -0.2, 0.6, 0.9, -1.3, 0.45},
                           {1.4, 0.2, -0.7, 0.5, 0.35, -1.2, 0.15, 0.05, 0.7},
                           {-0.9, 0.75, 0.4, -0.3, 1.05, 0.55, -0.45, 1.2, -0.65}};
    check_close("alignment", aligned_as_asked(), 1, 0, 0);
    for (int p = 0; p < 3; p++) {
        double dx[N] = {0};
        __enzyme_autodiff((void *)loss, points[p], dx, N);
        check_array_fd("reverse", loss_ctx, 0, points[p], N, dx);
        for (int k = 0; k < N; k++) {
            double dir[N] = {0};
            dir[k] = 1;
            double t = __enzyme_fwddiff((void *)loss, points[p], dir, N);
            check_close("forward", t, dx[k], 1e-10, 1e-12);
        }
    }
    return zyg_report();
}
