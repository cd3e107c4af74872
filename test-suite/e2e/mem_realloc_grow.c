// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// A growable buffer of active values (doubling with realloc as items are appended), as a
// dynamic-array push would do, then a nonlinear reduction over it.
// Each realloc must move the shadow along with the data it holds.
#include <stdlib.h>
#include "zyg_check.h"

double grow(const double *x, int n) {
    int cap = 2, len = 0;
    double *buf = malloc(cap * sizeof(double));
    for (int i = 0; i < n; i++) {
        for (int r = 0; r < 2; r++) {
            if (len == cap) {
                cap *= 2;
                buf = realloc(buf, cap * sizeof(double));
            }
            buf[len++] = r ? sin(x[i]) : x[i] * x[i];
        }
    }
    double s = 0.0;
    for (int i = 0; i < len; i++)
        s += buf[i] * (i + 1);
    free(buf);
    return s;
}

enum { N = 6 };
static double grow_n(const double *x) { return grow(x, N); }

static double fd(double (*g)(const double *), const double *x, int n, int k) {
    double a[64], b[64], h = ZYG_STEP(x[k]);
    for (int i = 0; i < n; i++) a[i] = b[i] = x[i];
    a[k] += h;
    b[k] -= h;
    return (g(a) - g(b)) / (2 * h);
}

int main(void) {
    double pts[2][N] = {{0.5, -1.1, 0.9, 0.2, -0.4, 1.3}, {-0.7, 0.35, 1.6, -1.2, 0.8, 0.05}};
    for (int q = 0; q < 2; q++) {
        double dx[N] = {0};
        __enzyme_autodiff((void *)grow, enzyme_dup, pts[q], dx, enzyme_const, N);
        for (int k = 0; k < N; k++)
            check_close("dx", dx[k], fd(grow_n, pts[q], N, k), FD_RTOL, FD_ATOL);
    }
    return zyg_report();
}
