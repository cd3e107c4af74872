// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// RUN: %grad-run -O3 %s %t.native -march=native | FileCheck %s
// Helpers that see records only as bytes (a char *) copy them with memcpy: one duplicates a
// record {double a; float b, c;}, one orders two records {double w; double *p;} by their
// key. Each reads only the leading double, so its own accesses type bytes 0..8 and nothing
// of 8..16. The caller keeps the records behind a pointer in a context struct and reads
// that pointer once for the call and again for its own accesses: the type analysis knows
// both loads point into one object (the one the pointer kept there points to), so the
// copies move the floats' adjoints and the pointer's shadow. The unknown bytes were once
// taken for doubles: garbage adjoints for the floats (3e38), and shadow pointers left
// behind by the swap.
// CHECK-NOT: FAIL
// CHECK: ALL OK
#include <string.h>
#include "zyg_check.h"

struct rec { double a; float b, c; };
struct link { double w; double *p; };
struct ctx { struct rec *recs; struct link *links; };

__attribute__((noinline)) void dup_first(char *base) {
    if (*(double *)base > -100) memcpy(base + 16, base, 16);
}

__attribute__((noinline)) void order_two(char *base) {
    char tmp[16];
    if (*(double *)base > *(double *)(base + 16)) {
        memcpy(tmp, base, 16);
        memcpy(base, base + 16, 16);
        memcpy(base + 16, tmp, 16);
    }
}

// After the calls recs[1] is a copy of recs[0], and links are ordered by w.
double f(struct ctx *c) {
    dup_first((char *)c->recs);
    order_two((char *)c->links);
    struct rec *s = c->recs, *d = c->recs + 1;
    struct link *l = c->links;
    return s->a * d->b + (double)s->b * s->c + (double)d->c * d->c + l[0].w * *l[0].p + l[1].w * l[1].w * *l[1].p;
}

int main(void) {
    // a, b, c (floats exactly representable), w0, w1, v0, v1
    double pts[3][7] = {{1.5, 2.0, -3.0, 0.5, 2.0, 3.0, 5.0},
                        {-0.5, 0.25, 1.5, 3.0, -1.0, -1.5, 0.5},
                        {2.0, 4.0, 0.5, -2.0, -3.0, 2.0, 0.25}};
    for (int k = 0; k < 3; k++) {
        double *x = pts[k];
        struct rec r[2] = {{x[0], (float)x[1], (float)x[2]}, {0, 0, 0}}, dr[2] = {{0, 0, 0}, {0, 0, 0}};
        double v[2] = {x[5], x[6]}, dv[2] = {0, 0};
        struct link l[2] = {{x[3], &v[0]}, {x[4], &v[1]}}, dl[2] = {{0, &dv[0]}, {0, &dv[1]}};
        struct ctx c = {r, l}, dc = {dr, dl};
        __enzyme_autodiff((void *)f, &c, &dc);
        // f = a*b + b*c + c^2 on the records: exact in floats.
        check_close("da", dr[0].a, x[1], 0, 1e-12);
        check_close("db", dr[0].b, x[0] + x[2], 0, 1e-6);
        check_close("dc", dr[0].c, x[1] + 2 * x[2], 0, 1e-6);
        check_close("dcopy.b", dr[1].b, 0, 0, 0);
        check_close("dcopy.c", dr[1].c, 0, 0, 0);
        // The links: f = L0.w * L0.v + L1.w^2 * L1.v, L the records after ordering.
        double w0 = x[3], w1 = x[4], v0 = x[5], v1 = x[6];
        int swapped = w0 > w1;
        check_close("dw0", dl[0].w, swapped ? 2 * w0 * v0 : v0, 1e-12, 1e-12);
        check_close("dw1", dl[1].w, swapped ? v1 : 2 * w1 * v1, 1e-12, 1e-12);
        check_close("dv0", dv[0], swapped ? w0 * w0 : w0, 1e-12, 1e-12);
        check_close("dv1", dv[1], swapped ? w1 : w1 * w1, 1e-12, 1e-12);
        // The shadow pointers moved with their records.
        for (int j = 0; j < 2; j++)
            if (dl[j].p != &dv[l[j].p - v]) {
                printf("FAIL the shadow pointer of link %d was not moved with it\n", j);
                zyg_failures++;
            }
    }
    return zyg_report();
}
