// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// static inline helpers as numerical C uses them (sq, lerp, smoothstep, a clamp with
// branches, a pointer-taking accumulate): inlined at -O2, real calls at -O0 (where clang
// emits them as internal functions), and a noinline one for comparison.
#include "zyg_check.h"

static inline double sq(double x) { return x * x; }
static inline double lerp(double a, double b, double t) { return a + t * (b - a); }
static inline double clampd(double x, double lo, double hi) { return x < lo ? lo : (x > hi ? hi : x); }
static inline double smoothstep(double e0, double e1, double x) {
    double t = clampd((x - e0) / (e1 - e0), 0.0, 1.0);
    return t * t * (3.0 - 2.0 * t);
}
static inline void accum(double *acc, double v, double w) { *acc += w * v; }
__attribute__((noinline)) static double softplus(double x) { return log1p(exp(x)); }

double shade(const double *p, int n) {
    double acc = 0.0;
    for (int i = 0; i + 1 < n; i++) {
        double a = p[i], b = p[i + 1];
        double t = smoothstep(-1.0, 1.0, a * b);
        accum(&acc, lerp(a, b, t), sq(b) + 0.5);
        accum(&acc, softplus(clampd(a - b, -0.8, 0.8)), 1.0);
    }
    return acc;
}

enum { N = 6 };
static double shade_n(const double *p) { return shade(p, N); }

static double fd(double (*g)(const double *), const double *x, int n, int k) {
    double a[64], b[64], h = ZYG_STEP(x[k]);
    for (int i = 0; i < n; i++) a[i] = b[i] = x[i];
    a[k] += h;
    b[k] -= h;
    return (g(a) - g(b)) / (2 * h);
}

int main(void) {
    double pts[2][N] = {{0.3, -0.6, 0.9, 1.65, -0.2, 0.5}, {-0.9, 0.4, 0.2, -1.3, 0.8, 1.1}};
    for (int q = 0; q < 2; q++) {
        double dp[N] = {0};
        __enzyme_autodiff((void *)shade, enzyme_dup, pts[q], dp, enzyme_const, N);
        for (int k = 0; k < N; k++)
            check_close("dp", dp[k], fd(shade_n, pts[q], N, k), FD_RTOL, FD_ATOL);
    }
    return zyg_report();
}
