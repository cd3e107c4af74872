// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// RUN: %grad-run -O3 %s %t.native -march=native | FileCheck %s
// Pointers that go through integers: an arena aligned by hand, (p + 15) & ~15, on the heap
// and on the stack (LLVM turns it into llvm.ptrmask), and a tagged pointer (p | 1, then
// & ~1 before use). The shadow follows the address at the same offset from the pointer it
// was computed from; these gradients were once silently zero.
// CHECK-NOT: FAIL
// CHECK: ALL OK
#include <stdint.h>
#include <stdlib.h>
#include "zyg_check.h"

enum { N = 6 };

static double *align16(void *p) { return (double *)(((uintptr_t)p + 15) & ~(uintptr_t)15); }

double heap_arena(const double *x, void *unused) {
    (void)unused;
    char *arena = malloc(sizeof(double) * (N + 2));
    double *a = align16(arena);
    for (int i = 0; i < N; i++)
        a[i] = x[i] * x[i];
    double s = 0;
    for (int i = 0; i < N; i++)
        s += a[i] * sin(x[(i + 1) % N]);
    free(arena);
    return s;
}

double stack_arena(const double *x, void *unused) {
    (void)unused;
    char buf[sizeof(double) * (N + 2)];
    double *a = align16(buf + 1);
    for (int i = 0; i < N; i++)
        a[i] = exp(x[i]);
    double s = 0;
    for (int i = 0; i < N; i++)
        s += a[i] * a[(i + 2) % N];
    return s;
}

double tagged(const double *x, void *unused) {
    (void)unused;
    uintptr_t t = (uintptr_t)x | 1; /* the low bit marks "borrowed" */
    double *p = (double *)(t & ~(uintptr_t)1);
    double s = 0;
    for (int i = 0; i < N; i++)
        s += p[i] * p[i] * (double)(t & 1);
    return s;
}

int main(void) {
    double x[N] = {0.5, -1.2, 0.8, 0.3, -0.6, 1.1};
    double d1[N] = {0}, d2[N] = {0}, d3[N] = {0};
    __enzyme_autodiff((void *)heap_arena, enzyme_dup, x, d1, enzyme_const, (void *)0);
    check_array_fd("heap arena", heap_arena, 0, x, N, d1);
    __enzyme_autodiff((void *)stack_arena, enzyme_dup, x, d2, enzyme_const, (void *)0);
    check_array_fd("stack arena", stack_arena, 0, x, N, d2);
    __enzyme_autodiff((void *)tagged, enzyme_dup, x, d3, enzyme_const, (void *)0);
    check_array_fd("tagged", tagged, 0, x, N, d3);
    return zyg_report();
}
