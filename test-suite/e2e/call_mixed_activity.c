// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// One helper called at several sites with different activity: dot(x, x), dot(x, c) and
// dot(c, x) with c constant data, dot(c, c) fully inactive, and a scale helper whose
// scalar factor is active at one site and constant at another; each pattern gets its own
// specialisation (or a shared one), and all must agree with finite differences. The
// helpers are static: at -O2 they become internal fastcc, and the inactive call dot(c, c)
// must keep that calling convention when it is copied into the primal.
#include "zyg_check.h"

enum { N = 5 };

__attribute__((noinline)) static double dot(const double *a, const double *b, int n) {
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += a[i] * b[i];
    return s;
}

__attribute__((noinline)) static void scale_into(const double *src, double *dst, double s, int n) {
    for (int i = 0; i < n; i++)
        dst[i] = s * sin(src[i]);
}

double mixed(const double *x, const double *c, double alpha) {
    double u[N], v[N];
    double xx = dot(x, x, N);
    double xc = dot(x, c, N);
    double cx = dot(c, x, N);
    double cc = dot(c, c, N);
    scale_into(x, u, alpha, N);  /* active factor */
    scale_into(c, v, 2.0, N);    /* constant source and factor */
    double uv = dot(u, v, N);
    return xx * xc + cx / cc + uv * uv + dot(u, x, N);
}

static const double cg[N] = {0.5, -0.3, 0.8, 1.1, -0.6};
static double alpha_g = 0.7;
/* z = (x[N], alpha) */
static double mixed_flat(const double *z) { return mixed(z, cg, z[N]); }

static double fd(double (*g)(const double *), const double *x, int n, int k) {
    double a[64], b[64], h = ZYG_STEP(x[k]);
    for (int i = 0; i < n; i++) a[i] = b[i] = x[i];
    a[k] += h;
    b[k] -= h;
    return (g(a) - g(b)) / (2 * h);
}

int main(void) {
    double pts[2][N + 1] = {{0.4, 1.2, -0.7, 0.3, 0.9, 0.7}, {-1.1, 0.2, 0.6, -0.4, 1.5, -0.35}};
    for (int q = 0; q < 2; q++) {
        double x[N], dx[N] = {0};
        for (int i = 0; i < N; i++) x[i] = pts[q][i];
        double da = __enzyme_autodiff((void *)mixed, enzyme_dup, x, dx, enzyme_const, cg, pts[q][N]);
        for (int k = 0; k < N; k++)
            check_close("dx", dx[k], fd(mixed_flat, pts[q], N + 1, k), FD_RTOL, FD_ATOL);
        check_close("dalpha", da, fd(mixed_flat, pts[q], N + 1, N), FD_RTOL, FD_ATOL);
    }
    return zyg_report();
}
