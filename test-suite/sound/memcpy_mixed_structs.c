// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// RUN: %grad-run -O3 %s %t.native -march=native | FileCheck %s
// Structs that mix an int, a pointer, a double and a long, copied whole: by struct
// assignment (clang's memcpy, with its description of the fields at -O2), by memcpy of a
// run of them through a helper that sees only bytes, and by integer loads and stores.
// Only the double's bytes carry a derivative; the pointer's bytes carry its shadow, which
// the copy must take along (it once added and zeroed shadow pointers as if they were
// doubles: a crash). The user's shadow pointers must come back untouched.
// CHECK-NOT: FAIL
// CHECK: ALL OK
#include <stdlib.h>
#include <string.h>
#include "zyg_check.h"

typedef struct { int n; double *w; double b; long tag; } layer;

__attribute__((noinline)) void copy_layers(layer *dst, const layer *src, int k) {
    for (int i = 0; i < k; i++)
        dst[i] = src[i];
}
__attribute__((noinline)) void copy_bytes(void *dst, const void *src, int k) { memcpy(dst, src, k * sizeof(layer)); }

double f(layer *src, int k) {
    layer *a = malloc(k * sizeof(layer)), *b = malloc(k * sizeof(layer));
    copy_layers(a, src, k);
    copy_bytes(b, a, k);
    layer last = b[k - 1]; /* a copy on the stack */
    double s = 0;
    for (int i = 0; i < k; i++)
        for (int j = 0; j < b[i].n; j++)
            s += b[i].w[j] * b[i].w[j] * b[i].b + (double)b[i].tag * b[i].w[j];
    s += last.b * last.w[0];
    free(a);
    free(b);
    return s;
}

static double f_of(const double *x, void *unused) {
    (void)unused;
    double v0[2] = {x[0], x[1]}, v1[3] = {x[2], x[3], x[4]};
    layer L[2] = {{2, v0, x[5], 3}, {3, v1, x[6], -2}};
    return f(L, 2);
}

int main(void) {
    double x[7] = {1.0, 2.0, 3.0, -4.0, 0.5, 0.5, 1.5};
    double v0[2] = {x[0], x[1]}, v1[3] = {x[2], x[3], x[4]};
    double dv0[2] = {0}, dv1[3] = {0};
    layer L[2] = {{2, v0, x[5], 3}, {3, v1, x[6], -2}};
    layer dL[2] = {{2, dv0, 0, 3}, {3, dv1, 0, -2}};
    __enzyme_autodiff((void *)f, enzyme_dup, L, dL, enzyme_const, 2);
    double grad[7] = {dv0[0], dv0[1], dv1[0], dv1[1], dv1[2], dL[0].b, dL[1].b};
    check_array_fd("d f", f_of, 0, x, 7, grad);
    check_close("shadow pointer 0 kept", dL[0].w == dv0, 1, 0, 0);
    check_close("shadow pointer 1 kept", dL[1].w == dv1, 1, 0, 0);
    check_close("shadow ints kept", dL[0].n * 10 + dL[1].n, 23, 0, 0);
    return zyg_report();
}
