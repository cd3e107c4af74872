// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// Helpers that allocate, store an active value and return the pointer, called without any
// shadowed pointer argument: a `cons` cell constructor, a `box`, and wrappers around them
// (a box of a box of a box). The returned pointer needs the helper's shadow allocation, or
// the stored values' adjoints are lost (they once were: the gradient came out as 4, not 7).
// CHECK-NOT: FAIL
// CHECK: ALL OK
#include <stdlib.h>
#include "zyg_check.h"

typedef struct cell { double v; struct cell *next; } cell;

__attribute__((noinline)) cell *cons(double v, cell *next) {
    cell *c = malloc(sizeof *c);
    c->v = v;
    c->next = next;
    return c;
}
__attribute__((noinline)) double *box(double v) {
    double *p = malloc(sizeof *p);
    *p = v;
    return p;
}
__attribute__((noinline)) double *box2(double v) { return box(2 * v); }
__attribute__((noinline)) double *box3(double v) {
    double *q = box2(v + 1);
    *q += v;
    return q;
}

double f(double x) {
    cell *l = cons(x, 0);
    l = cons(x * x, l);
    l = cons(sin(x), l);
    double s = 0;
    for (cell *c = l; c; c = c->next)
        s += c->v * c->v;
    double *b = box3(3 * x); /* 2 (3x + 1) + 3x = 9x + 2 */
    s += *b * x;
    free(b);
    while (l) {
        cell *n = l->next;
        free(l);
        l = n;
    }
    return s;
}

int main(void) {
    double xs[] = {1.5, -0.7, 0.3, 2.2};
    for (int k = 0; k < 4; k++) {
        double x = xs[k];
        double d = __enzyme_autodiff((void *)f, x);
        /* s = sin^2 x + x^4 + x^2 + (9x + 2) x */
        double want = 2 * sin(x) * cos(x) + 4 * x * x * x + 2 * x + 18 * x + 2;
        check_close("df/dx", d, want, EXACT_RTOL, EXACT_ATOL);
        check_close("df/dx (fd)", d, FD1(f, x), FD_RTOL, FD_ATOL);
    }
    return zyg_report();
}
