// A custom allocator and its deallocator (`__enzyme_allocation_like`, zyg.h's
// ZYG_ALLOCATION_LIKE): a toy pool hands out memory from a static arena, which zyg cannot
// trace to anything it differentiates; declared an allocator, its memory gets a shadow
// (zeroed, from calloc, the size of the request) as malloc's does, and the adjoint frees
// that shadow: the heap in use is the same after 200 gradients as before.
// RUN: %grad-run -O0 %s %t -I%S/../../include | FileCheck %s
// RUN: %grad-run -O2 %s %t -I%S/../../include | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
#include <malloc.h>
#include <stddef.h>
#include "zyg_check.h"
#include "zyg/zyg.h"

typedef struct { size_t used; } pool;
static _Alignas(16) char arena[1 << 16];
ZYG_KEEP void *pool_alloc(pool *p, size_t bytes);
void *pool_alloc(pool *p, size_t bytes) {
    void *m = arena + p->used;
    p->used += (bytes + 15) & ~(size_t)15;
    return m;
}
ZYG_KEEP void pool_free(pool *p, void *m);
void pool_free(pool *p, void *m) {
    (void)m;
    p->used = 0;
}
ZYG_ALLOCATION_LIKE(pool_alloc, 1, "0,-1", pool_free);

static pool the_pool;
#define N 8
double model(const double *x, void *ctx) {
    (void)ctx;
    double *t = pool_alloc(&the_pool, N * sizeof(double));
    for (int i = 0; i < N; i++)
        t[i] = x[i] * x[i];
    double s = 0;
    for (int i = 0; i < N; i++)
        s += t[i] * x[(i + 1) % N] + sin(t[i]);
    pool_free(&the_pool, t);
    return s;
}

static size_t heap_in_use(void) {
    struct mallinfo2 m = mallinfo2();
    return m.uordblks + m.hblkhd;
}

int main(void) {
    double x[N], dx[N];
    for (int k = 0; k < 3; k++) {
        for (int i = 0; i < N; i++) {
            x[i] = 0.3 + 0.1 * i - 0.2 * k;
            dx[i] = 0;
        }
        __enzyme_autodiff((void *)model, enzyme_dup, x, dx, enzyme_const, (void *)0);
        check_array_fd("d model / dx", model, 0, x, N, dx);
    }
    size_t before = heap_in_use();
    for (int r = 0; r < 200; r++)
        __enzyme_autodiff((void *)model, enzyme_dup, x, dx, enzyme_const, (void *)0);
    size_t after = heap_in_use();
    /* A leaked shadow would be 200 * 64 bytes and more. */
    check_close("shadows freed: heap growth", (double)after - (double)before, 0, 0, 1024);
    return zyg_report();
}
