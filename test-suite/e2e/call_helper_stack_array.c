// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// A noinline helper with a local array initialised from its pointer argument and read in
// a loop with a computed index: the array's shadow is part of the helper's tape, kept in
// the caller's, and addresses into it must stay valid until the helper's adjoint runs.
// (An earlier zyg lost the gradient through w[0] here at -O0 and -O2.)
#include "zyg_check.h"

__attribute__((noinline)) static double mix(const double *r, int n) {
    double w[4] = {r[0] * r[0], r[1], r[2] * r[1], sin(r[3])};
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += w[(i * 3) % 4] * (i + 1);
    return s;
}

double outer(const double *r, int n) {
    double t = 0.0;
    for (int k = 0; k < 2; k++)
        t += mix(r + 4 * k, n) * (k + 1.5);
    return t;
}

enum { M = 8 };
static double outer_n(const double *r) { return outer(r, 4); }

static double fd(double (*g)(const double *), const double *x, int n, int k) {
    double a[64], b[64], h = ZYG_STEP(x[k]);
    for (int i = 0; i < n; i++) a[i] = b[i] = x[i];
    a[k] += h;
    b[k] -= h;
    return (g(a) - g(b)) / (2 * h);
}

int main(void) {
    double pts[2][M] = {{0.5, 0.3, -0.7, 1.1, 0.2, -0.9, 0.4, 0.6}, {-1.2, 0.8, 0.35, -0.4, 1.3, 0.1, -0.6, 2.0}};
    for (int q = 0; q < 2; q++) {
        double dr[M] = {0};
        __enzyme_autodiff((void *)outer, enzyme_dup, pts[q], dr, enzyme_const, 4);
        for (int k = 0; k < M; k++)
            check_close("dr", dr[k], fd(outer_n, pts[q], M, k), FD_RTOL, FD_ATOL);
    }
    return zyg_report();
}
