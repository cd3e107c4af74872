// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Helpers returning pointers into active memory: a row accessor `double *row(m, i)` and a
// `max_elem` returning a pointer to the largest element (then written through).
#include "zyg_check.h"

enum { R = 3, C = 4 };

__attribute__((noinline)) static double *row(double *m, int i) { return m + i * C; }

__attribute__((noinline)) static double *max_elem(double *a, int n) {
    double *best = a;
    for (int i = 1; i < n; i++)
        if (a[i] > *best)
            best = &a[i];
    return best;
}

double loss(double *m) {
    double s = 0.0;
    for (int i = 0; i < R; i++) {
        double *r = row(m, i);
        double *p = max_elem(r, C);
        *p = *p * *p; /* square the row maximum in place */
        for (int j = 0; j < C; j++)
            s += r[j] * (j + 1);
    }
    return s;
}

static double loss_copy(const double *m0) {
    double m[R * C];
    for (int i = 0; i < R * C; i++) m[i] = m0[i];
    return loss(m);
}

static double fd(double (*g)(const double *), const double *x, int n, int k) {
    double a[64], b[64], h = ZYG_STEP(x[k]);
    for (int i = 0; i < n; i++) a[i] = b[i] = x[i];
    a[k] += h;
    b[k] -= h;
    return (g(a) - g(b)) / (2 * h);
}

int main(void) {
    for (int q = 0; q < 2; q++) {
        double m0[R * C], m[R * C], dm[R * C] = {0};
        for (int i = 0; i < R * C; i++) m0[i] = m[i] = sin(1.7 * i + 0.3 + 0.9 * q);
        __enzyme_autodiff((void *)loss, enzyme_dup, m, dm);
        for (int k = 0; k < R * C; k++)
            check_close("dm", dm[k], fd(loss_copy, m0, R * C, k), FD_RTOL, FD_ATOL);
    }
    return zyg_report();
}
