// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Recursive Horner evaluation p(x) = c[0] + x p_rest(x) over a dup coefficient array
// walked by pointer (c + 1), with x active: d/dc[k] = x^k and d/dx = p'(x) exactly, plus
// a recursive evaluation of a continued fraction checked against finite differences.
#include "zyg_check.h"

double horner(const double *c, int n, double x) {
    if (n == 0)
        return 0.0;
    return c[0] + x * horner(c + 1, n - 1, x);
}

/* b0 + a1 / (b1 + a2 / (b2 + ...)) with a_k = c[k] * x */
double cfrac(const double *c, int n, double x) {
    if (n == 1)
        return c[0];
    return c[0] + c[1] * x / cfrac(c + 1, n - 1, x);
}

enum { N = 7 };
static double xg;
static double cfrac_c(const double *c) { return cfrac(c, N, xg); }
static double cg[N];
static double cfrac_x(double x) { return cfrac(cg, N, x); }

static double fd(double (*g)(const double *), const double *x, int n, int k) {
    double a[64], b[64], h = ZYG_STEP(x[k]);
    for (int i = 0; i < n; i++) a[i] = b[i] = x[i];
    a[k] += h;
    b[k] -= h;
    return (g(a) - g(b)) / (2 * h);
}

int main(void) {
    double xs[2] = {0.7, -1.3};
    for (int q = 0; q < 2; q++) {
        double x = xs[q], dc[N] = {0};
        for (int i = 0; i < N; i++) cg[i] = 1.0 + 0.3 * i + 0.2 * sin(i + q);
        double dx = __enzyme_autodiff((void *)horner, enzyme_dup, cg, dc, enzyme_const, N, x);
        double pk = 1.0, dp = 0.0;
        for (int k = 0; k < N; k++) {
            check_close("horner dc", dc[k], pk, EXACT_RTOL, EXACT_ATOL);
            if (k + 1 < N) dp += (k + 1) * cg[k + 1] * pk;
            pk *= x;
        }
        check_close("horner dx", dx, dp, 1e-12, 1e-14);

        double dc2[N] = {0};
        xg = x;
        double dx2 = __enzyme_autodiff((void *)cfrac, enzyme_dup, cg, dc2, enzyme_const, N, x);
        for (int k = 0; k < N; k++)
            check_close("cfrac dc", dc2[k], fd(cfrac_c, cg, N, k), FD_RTOL, FD_ATOL);
        check_close("cfrac dx", dx2, FD1(cfrac_x, x), FD_RTOL, FD_ATOL);
    }
    return zyg_report();
}
