// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Forward mode through recursion: a recursive pairwise (binary splitting) sum of a
// function of a `dup` array, exponentiation by squaring, a continued fraction evaluated
// recursively, mutual recursion, and a recursive quadrature (adaptive-depth Simpson with a
// fixed depth). Tangents against central differences along the same direction.
#include <string.h>
#include "zyg_check.h"

static double pairwise(const double *x, int lo, int hi) {
    if (hi - lo == 1) return x[lo] * x[lo] + sin(x[lo]);
    int mid = lo + (hi - lo) / 2;
    double l = pairwise(x, lo, mid), r = pairwise(x, mid, hi);
    return l + r + 0.01 * l * r;
}

static double ipow(double b, unsigned n) {
    if (n == 0) return 1.0;
    double half = ipow(b, n / 2);
    return (n & 1) ? half * half * b : half * half;
}

/* a0 + x / (a1 + x / (a2 + ...)) down to depth d */
static double cfrac(double x, double a, int d) {
    if (d == 0) return a;
    return a + x / cfrac(x, a + 0.5, d - 1);
}

static double odd_part(double x, int n);
static double even_part(double x, int n) { return n <= 0 ? cos(x) : x * odd_part(x * 0.9, n - 1) + 1.0; }
static double odd_part(double x, int n) { return n <= 0 ? sin(x) : even_part(x + 0.1, n - 1) / (1.0 + x * x); }

static double simpson(double a, double b, double k, int depth) {
    if (depth == 0) {
        double m = 0.5 * (a + b);
        double fa = exp(-k * a * a), fm = exp(-k * m * m), fb = exp(-k * b * b);
        return (b - a) / 6.0 * (fa + 4 * fm + fb);
    }
    double m = 0.5 * (a + b);
    return simpson(a, m, k, depth - 1) + simpson(m, b, k, depth - 1);
}

static double all(const double *x, double t, double k) {
    return pairwise(x, 0, 7) * ipow(t, 11) + cfrac(t, k, 6) + even_part(t, 5) + simpson(0.0, t, k, 4);
}

int main(void) {
    double base[2][7] = {{0.3, -0.5, 0.8, 1.1, -0.2, 0.6, 0.4}, {1.2, 0.9, -0.3, 0.5, 0.7, -1.1, 0.25}};
    double dirs[3][7] = {{1, 0, 0, 0, 0, 0, 0}, {0, 0, 0, 0, 0, 0, 0}, {0.5, -0.3, 0.2, 0.1, -0.4, 0.6, 0.3}};
    double dts[3] = {0, 1, -0.4}, dks[3] = {0, 0, 0.8};
    double ts[] = {0.9, 1.15}, h = 1e-6;
    for (int p = 0; p < 2; p++)
        for (int d = 0; d < 3; d++) {
            double x[7], dx[7], xp[7], xm[7];
            memcpy(x, base[p], sizeof x);
            memcpy(dx, dirs[d], sizeof dx);
            for (int i = 0; i < 7; i++) xp[i] = x[i] + h * dx[i], xm[i] = x[i] - h * dx[i];
            double t = ts[p], k = 0.7 + 0.3 * p, dt = dts[d], dk = dks[d];
            double got = __enzyme_fwddiff((void *)all, enzyme_dup, x, dx, t, dt, k, dk);
            double want = (all(xp, t + h * dt, k + h * dk) - all(xm, t - h * dt, k - h * dk)) / (2 * h);
            check_close("all along (dx, dt, dk)", got, want, FD_RTOL, FD_ATOL);
            /* each piece on its own */
            double g = __enzyme_fwddiff((void *)ipow, t, 1.0, enzyme_const, 11u);
            check_close("ipow exact", g, 11 * ipow(t, 10), EXACT_RTOL, EXACT_ATOL);
            g = __enzyme_fwddiff((void *)cfrac, t, dt, k, dk, enzyme_const, 6);
            check_close("cfrac", g, (cfrac(t + h * dt, k + h * dk, 6) - cfrac(t - h * dt, k - h * dk, 6)) / (2 * h), FD_RTOL, FD_ATOL);
            g = __enzyme_fwddiff((void *)even_part, t, 1.0, enzyme_const, 7);
            check_close("mutual recursion", g, (even_part(t + h, 7) - even_part(t - h, 7)) / (2 * h), FD_RTOL, FD_ATOL);
            g = __enzyme_fwddiff((void *)simpson, enzyme_const, 0.0, t, 1.0, k, dk, enzyme_const, 4);
            /* d/dt of int_0^t exp(-k s^2) ds ~ exp(-k t^2) (Simpson is exact in the limit; compare to FD) */
            check_close("simpson", g, (simpson(0.0, t + h, k + h * dk, 4) - simpson(0.0, t - h, k - h * dk, 4)) / (2 * h), FD_RTOL, FD_ATOL);
        }
    return zyg_report();
}
