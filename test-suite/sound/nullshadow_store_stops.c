// RUN: not %grad-run -O0 %s %t 2>&1 | FileCheck %s
// RUN: not %grad-run -O2 %s %t 2>&1 | FileCheck %s
// RUN: not %grad-run -O3 %s %t.native -march=native 2>&1 | FileCheck %s
// A work buffer passed as `enzyme_const` is kept in a struct; one helper stores an active
// value through it and another reads it back. The buffer has no shadow (its pointer's
// shadow is null), so the stored value's derivative would be lost: the gradient once
// returned 0 here, with exit status 0. Whether a shadow is null is known only when the
// program runs: the program now stops at that store with a message that names it.
// CHECK-NOT: ALL OK
// CHECK: zyg: runtime error: in function `put` at {{.*}}nullshadow_store_stops.c:[[@LINE+5]]
// CHECK-SAME: a value with a derivative is written to memory zyg does not differentiate
// CHECK-SAME: enzyme_dup
#include "zyg_check.h"
struct box { double *p; };
__attribute__((noinline)) void put(struct box *b, double v) { b->p[0] = v; }
__attribute__((noinline)) double get(struct box *b) { return b->p[0]; }

double f(double x, double *scratch) {
    struct box b = {scratch};
    put(&b, x * x);
    return get(&b);
}

int main(void) {
    double scratch[1];
    double d = __enzyme_autodiff((void *)f, 1.5, enzyme_const, scratch);
    check_close("d/dx", d, 3.0, EXACT_RTOL, EXACT_ATOL);
    return zyg_report();
}
