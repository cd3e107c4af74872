// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// An output cursor into a stack buffer, `*out++ = f(p[0] - p[-1])` while an input pointer
// walks the dup array, then the cursor walked back with `--out` until it meets the start;
// at -O2 the cursor's loop-exit phi has a `poison` incoming (the path where it is unused).
#include "zyg_check.h"

double cursor(const double *x, int n) {
    double buf[16], *out = buf;
    for (const double *p = x + 1; p != x + n; p++)
        *out++ = tanh(p[0] - p[-1]);
    double t = 0.0;
    while (out != buf) {
        --out;
        t = t * 0.7 + *out * *out;
    }
    return t;
}

enum { N = 7 };
static double cursor_n(const double *x) { return cursor(x, N); }

static double fd(double (*g)(const double *), const double *x, int n, int k) {
    double a[64], b[64], h = ZYG_STEP(x[k]);
    for (int i = 0; i < n; i++) a[i] = b[i] = x[i];
    a[k] += h;
    b[k] -= h;
    return (g(a) - g(b)) / (2 * h);
}

int main(void) {
    double pts[2][N] = {{0.4, -1.1, 0.9, 2.0, -0.3, 0.6, 1.3}, {-0.8, 0.2, 1.5, -0.6, 0.05, 1.1, -1.4}};
    for (int q = 0; q < 2; q++) {
        double dx[N] = {0};
        __enzyme_autodiff((void *)cursor, enzyme_dup, pts[q], dx, enzyme_const, N);
        for (int k = 0; k < N; k++)
            check_close("dx", dx[k], fd(cursor_n, pts[q], N, k), FD_RTOL, FD_ATOL);
    }
    return zyg_report();
}
