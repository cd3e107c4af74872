// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Helpers that return their results through pointer arguments into the caller's locals:
// polar coordinates (two scalar outputs), mean and variance of an array, and a helper
// that both reads and updates an in/out pointer; the outputs' shadows flow back through them.
#include "zyg_check.h"

__attribute__((noinline)) static void polar(double x, double y, double *r, double *theta) {
    *r = sqrt(x * x + y * y);
    *theta = atan2(y, x);
}

__attribute__((noinline)) static void mean_var(const double *x, int n, double *mean, double *var) {
    double m = 0.0;
    for (int i = 0; i < n; i++)
        m += x[i];
    m /= n;
    double v = 0.0;
    for (int i = 0; i < n; i++)
        v += (x[i] - m) * (x[i] - m);
    *mean = m;
    *var = v / (n - 1);
}

__attribute__((noinline)) static void decay(double *state, double rate) { *state = *state * exp(-rate) + rate * rate; }

double model(const double *x, int n, double rate) {
    double r, th, m, v;
    polar(x[0], x[1], &r, &th);
    mean_var(x, n, &m, &v);
    double st = r * th;
    for (int i = 0; i < 3; i++)
        decay(&st, rate);
    return st + m * v + log(v);
}

enum { N = 6 };
static double rate_g = 0.3;
static double model_x(const double *x) { return model(x, N, rate_g); }
static double xg[N];
static double model_rate(double rate) { return model(xg, N, rate); }

static double fd(double (*g)(const double *), const double *x, int n, int k) {
    double a[64], b[64], h = ZYG_STEP(x[k]);
    for (int i = 0; i < n; i++) a[i] = b[i] = x[i];
    a[k] += h;
    b[k] -= h;
    return (g(a) - g(b)) / (2 * h);
}

int main(void) {
    double pts[2][N] = {{0.8, 0.6, -0.4, 1.2, 0.3, -0.9}, {-0.5, 1.1, 0.7, -1.3, 0.2, 0.45}};
    for (int q = 0; q < 2; q++) {
        double dx[N] = {0};
        for (int i = 0; i < N; i++) xg[i] = pts[q][i];
        double dr = __enzyme_autodiff((void *)model, enzyme_dup, xg, dx, enzyme_const, N, rate_g);
        for (int k = 0; k < N; k++)
            check_close("dx", dx[k], fd(model_x, xg, N, k), FD_RTOL, FD_ATOL);
        check_close("drate", dr, FD1(model_rate, rate_g), FD_RTOL, FD_ATOL);
    }
    return zyg_report();
}
