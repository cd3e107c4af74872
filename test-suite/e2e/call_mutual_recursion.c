// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Mutual recursion over an array: even(x, n) and odd(x, n) consume one element each and
// call each other on x + 1, a state threaded through as a scalar argument, plus a third
// function in the cycle that writes into a dup output array at every level.
#include "zyg_check.h"

double odd_step(const double *x, int n, double s, double *trace);

double even_step(const double *x, int n, double s, double *trace) {
    if (n == 0)
        return s;
    trace[0] = s * x[0];
    return odd_step(x + 1, n - 1, s + sin(x[0]) * s, trace + 1);
}

double odd_step(const double *x, int n, double s, double *trace) {
    if (n == 0)
        return s * s;
    trace[0] = s + x[0];
    return even_step(x + 1, n - 1, s * cos(x[0]) + x[0], trace + 1);
}

double run(const double *x, int n, double s0) {
    double trace[16];
    double r = even_step(x, n, s0, trace);
    for (int i = 0; i < n; i++)
        r += 0.1 * trace[i] * trace[i];
    return r;
}

enum { N = 7 };
/* z = (x[N], s0) */
static double run_flat(const double *z) { return run(z, N, z[N]); }

static double fd(double (*g)(const double *), const double *x, int n, int k) {
    double a[64], b[64], h = ZYG_STEP(x[k]);
    for (int i = 0; i < n; i++) a[i] = b[i] = x[i];
    a[k] += h;
    b[k] -= h;
    return (g(a) - g(b)) / (2 * h);
}

int main(void) {
    double pts[2][N + 1] = {{0.4, -0.9, 1.3, 0.2, -0.5, 0.8, 1.1, 0.6}, {-1.2, 0.5, 0.3, -0.7, 1.6, 0.1, -0.3, -0.4}};
    for (int q = 0; q < 2; q++) {
        double x[N], dx[N] = {0};
        for (int i = 0; i < N; i++) x[i] = pts[q][i];
        double ds = __enzyme_autodiff((void *)run, enzyme_dup, x, dx, enzyme_const, N, pts[q][N]);
        for (int k = 0; k < N; k++)
            check_close("dx", dx[k], fd(run_flat, pts[q], N + 1, k), FD_RTOL, FD_ATOL);
        check_close("ds0", ds, fd(run_flat, pts[q], N + 1, N), FD_RTOL, FD_ATOL);
    }
    return zyg_report();
}
