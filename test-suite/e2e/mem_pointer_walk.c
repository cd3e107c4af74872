// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// RUN: %grad-run -O3 %s %t.o3 %march-v3 | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Pointer arithmetic as C programmers write it: `while (p < end) s += f(*p++)`, two
// pointers walking towards each other, and `*out++ = ...` into a local buffer walked back
// with a decrementing pointer; the shadows follow the pointer phis.
#include "zyg_check.h"

double walk(const double *x, int n) {
    const double *p = x, *end = x + n;
    double s = 0.0;
    while (p < end) {
        double v = *p++;
        s += v * exp(-0.5 * v);
    }
    const double *lo = x, *hi = x + n - 1;
    while (lo < hi)
        s += *lo++ * *hi--;
    double buf[16], *out = buf;
    for (p = x + 1; p != end; p++)
        *out++ = p[0] - p[-1];
    double t = 0.0;
    while (out != buf) {
        --out;
        t = t * 0.7 + *out * *out;
    }
    return s + t;
}

enum { N = 7 };
static double walk_n(const double *x) { return walk(x, N); }

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
        __enzyme_autodiff((void *)walk, enzyme_dup, pts[q], dx, enzyme_const, N);
        for (int k = 0; k < N; k++)
            check_close("dx", dx[k], fd(walk_n, pts[q], N, k), FD_RTOL, FD_ATOL);
    }
    return zyg_report();
}
