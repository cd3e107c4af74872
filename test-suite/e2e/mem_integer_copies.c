// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Memory holding floats and integers side by side, and doubles moved as raw bytes: a swap
// through memcpy (clang -O2 copies through an i64), records { double x, y; int id; } copied
// whole (memcpy of the struct) and field by field, with the integer ids steering the math.
#include <string.h>
#include "zyg_check.h"

typedef struct { double x, y; int id; } rec;

static void swap_bytes(double *a, double *b) {
    double t;
    memcpy(&t, a, sizeof t);
    memcpy(a, b, sizeof t);
    memcpy(b, &t, sizeof t);
}

double f(double *v, rec *r, int n) {
    for (int i = 0; i + 1 < n; i += 2)
        swap_bytes(&v[i], &v[i + 1]);
    rec tmp[8];
    for (int i = 0; i < n; i++)
        tmp[i] = r[n - 1 - i];  // whole-struct copies, ints included
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        r[i].id = tmp[i].id * 2;  // an integer field written into differentiated memory
        s += v[i] * (i + 1) + sin(tmp[i].x) * tmp[i].y * (tmp[i].id % 3 + 1) + r[i].x * r[i].id;
    }
    return s;
}

static void reset(double *v, rec *r, const double *v0, const rec *r0, int n) {
    memcpy(v, v0, n * sizeof *v);
    memcpy(r, r0, n * sizeof *r);
}

int main(void) {
    enum { N = 5 };
    const double v0[N] = {0.3, -0.8, 1.4, 0.2, -1.1};
    const rec r0[N] = {{0.5, 1.5, 1}, {-0.3, 0.7, 2}, {1.1, -0.4, 3}, {0.2, 0.9, 4}, {-0.7, 0.6, 5}};
    double v[N], dv[N] = {0};
    rec r[N], dr[N];
    memset(dr, 0, sizeof dr);
    reset(v, r, v0, r0, N);
    __enzyme_autodiff((void *)f, enzyme_dup, v, dv, enzyme_dup, r, dr, enzyme_const, N);
    for (int k = 0; k < N; k++) {
        double h = 1e-6, a, b;
        double va[N], vb[N];
        rec ra[N], rb[N];
        reset(va, ra, v0, r0, N);
        reset(vb, rb, v0, r0, N);
        va[k] += h;
        vb[k] -= h;
        a = f(va, ra, N);
        b = f(vb, rb, N);
        check_close("df/dv", dv[k], (a - b) / (2 * h), FD_RTOL, FD_ATOL);
        for (int field = 0; field < 2; field++) {
            reset(va, ra, v0, r0, N);
            reset(vb, rb, v0, r0, N);
            *(field ? &ra[k].y : &ra[k].x) += h;
            *(field ? &rb[k].y : &rb[k].x) -= h;
            a = f(va, ra, N);
            b = f(vb, rb, N);
            check_close(field ? "df/dr.y" : "df/dr.x", field ? dr[k].y : dr[k].x, (a - b) / (2 * h), FD_RTOL, FD_ATOL);
        }
    }
    return zyg_report();
}
