// A generic sort, as C libraries' qsort clones are written: elements of `size` bytes,
// compared by their leading double and swapped with memcpy through a byte buffer. The
// elements are records {double w; double *p;} kept behind a table's pointer, but the sort
// reaches them at byte offsets `j * size` with a size it is given, so zyg cannot tell where
// in a record a copy starts: whether the bytes it moves are the double (an adjoint to move)
// or the pointer (a shadow to move). zyg refuses rather than take them for doubles, as it
// once did (the sort's own accesses, at such offsets, type nothing).
// RUN: rm -f %t.out.ll
// RUN: %clang -O0 -g -S -emit-llvm %s -o %t.O0.ll
// RUN: not %zyg grad %t.O0.ll -o %t.out.ll 2>&1 | FileCheck %s
// RUN: %clang -O2 -g -S -emit-llvm %s -o %t.O2.ll
// RUN: not %zyg grad %t.O2.ll -o %t.out.ll 2>&1 | FileCheck %s
// RUN: not test -e %t.out.ll
// CHECK: in function `key_sort` at {{.*}}memcpy_unaligned_refused.c:[[@LINE+13]]:{{[0-9]+}}: cannot tell which bytes of this copy carry derivatives and which carry pointers (they are at an offset zyg cannot tell in memory that holds doubles and pointers)
// CHECK-NEXT: call void @llvm.memcpy
#include <stddef.h>
#include <string.h>
void __enzyme_autodiff(void *, ...);

struct link { double w; double *p; };

__attribute__((noinline)) void key_sort(void *base, size_t n, size_t size) {
    char tmp[64], *b = base;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j + 1 < n - i; j++) {
            char *x = b + j * size, *y = b + (j + 1) * size;
            if (*(double *)x > *(double *)y) { memcpy(tmp, x, size); memcpy(x, y, size); memcpy(y, tmp, size); }
        }
}

struct table { struct link *items; int n; };

double f(struct table *t) {
    key_sort(t->items, (size_t)t->n, sizeof(struct link));
    double s = 0;
    for (int i = 0; i < t->n; i++) s += t->items[i].w * *t->items[i].p * (i + 1);
    return s;
}

void df(struct table *t, struct table *dt) { __enzyme_autodiff((void *)f, t, dt); }
