// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Pointer selects `double *p = c ? a : b` on a flag and on the data, reading and writing
// through the chosen buffer, and a pointer that alternates between two buffers in a loop
// (a pointer phi); the shadow pointer is selected beside the pointer.
#include "zyg_check.h"

enum { N = 5 };

double pick(double *a, double *b, int flag) {
    double *p = flag ? a : b;
    double *q = a[0] > b[0] ? a : b;    /* data-dependent choice */
    double s = 0.0;
    for (int i = 0; i < N; i++)
        s += p[i] * q[i];
    for (int i = 0; i < N; i++)
        q[i] = sin(q[i]) + p[i];         /* write through the selected pointer */
    double *r = a, *w = b;
    for (int i = 0; i < N; i++) {
        s += r[i] * (i + 1);
        double *t = r;                   /* swap roles each iteration */
        r = w;
        w = t;
    }
    for (int i = 0; i < N; i++)
        s += a[i] * a[i] + 0.5 * b[i] * b[i] * b[i];
    return s;
}

static int flag_g;
/* z = (a, b), copied */
static double pick_flat(const double *z) {
    double a[N], b[N];
    for (int i = 0; i < N; i++) a[i] = z[i], b[i] = z[N + i];
    return pick(a, b, flag_g);
}

static double fd(double (*g)(const double *), const double *x, int n, int k) {
    double a[64], b[64], h = ZYG_STEP(x[k]);
    for (int i = 0; i < n; i++) a[i] = b[i] = x[i];
    a[k] += h;
    b[k] -= h;
    return (g(a) - g(b)) / (2 * h);
}

int main(void) {
    double pts[2][2 * N] = {{0.7, -0.3, 1.1, 0.2, -0.9, 0.1, 0.8, -0.5, 1.4, 0.6},
                            {-0.4, 0.5, 0.3, -1.2, 0.9, 0.6, -0.7, 1.0, 0.2, -0.3}};
    for (int q = 0; q < 2; q++)
        for (flag_g = 0; flag_g < 2; flag_g++) {
            double a[N], b[N], da[N] = {0}, db[N] = {0};
            for (int i = 0; i < N; i++) a[i] = pts[q][i], b[i] = pts[q][N + i];
            __enzyme_autodiff((void *)pick, enzyme_dup, a, da, enzyme_dup, b, db, enzyme_const, flag_g);
            for (int k = 0; k < N; k++) {
                check_close("da", da[k], fd(pick_flat, pts[q], 2 * N, k), FD_RTOL, FD_ATOL);
                check_close("db", db[k], fd(pick_flat, pts[q], 2 * N, N + k), FD_RTOL, FD_ATOL);
            }
        }
    return zyg_report();
}
