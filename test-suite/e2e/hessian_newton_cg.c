// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Newton's method with conjugate gradients on Hessian-vector products (forward over reverse,
// never forming the Hessian) minimises f(x) = sum_i (exp(x_i - c_i) - (x_i - c_i)) +
// 0.1 sum_i (x_{i+1} - x_i - c_{i+1} + c_i)^2, whose unique minimum is x = c. Checked: from
// three starts, x converges to c and the gradient to 0 in a few iterations, and one H v per
// start matches central differences of the gradient.
#include <string.h>
#include "zyg_check.h"

#define N 6
static const double c[N] = {0.5, -1.0, 2.0, 0.25, -0.3, 1.2};

static double f(const double *x, int n) {
    double s = 0;
    for (int i = 0; i < n; i++) s += exp(x[i] - c[i]) - (x[i] - c[i]);
    for (int i = 0; i + 1 < n; i++) {
        double d = x[i + 1] - x[i] - c[i + 1] + c[i];
        s += 0.1 * d * d;
    }
    return s;
}

static void grad(const double *x, double *g, int n) {
    memset(g, 0, n * sizeof(double));
    __enzyme_autodiff((void *)f, enzyme_dup, x, g, enzyme_const, n);
}

static void hvp(const double *x, const double *v, double *hv) {
    double g[N] = {0};
    memset(hv, 0, sizeof(double) * N);
    __enzyme_fwddiff((void *)grad, enzyme_dup, x, v, enzyme_dup, g, hv, enzyme_const, N);
}

static double dot(const double *a, const double *b) {
    double s = 0;
    for (int i = 0; i < N; i++) s += a[i] * b[i];
    return s;
}

/* solve H p = -g by CG */
static void newton_step(const double *x, const double *g, double *p) {
    double r[N], d[N], Hd[N];
    for (int i = 0; i < N; i++) {
        p[i] = 0;
        r[i] = -g[i];
        d[i] = r[i];
    }
    double rr = dot(r, r);
    for (int it = 0; it < 3 * N && rr > 1e-30; it++) {
        hvp(x, d, Hd);
        double alpha = rr / dot(d, Hd);
        for (int i = 0; i < N; i++) {
            p[i] += alpha * d[i];
            r[i] -= alpha * Hd[i];
        }
        double rr2 = dot(r, r);
        for (int i = 0; i < N; i++) d[i] = r[i] + rr2 / rr * d[i];
        rr = rr2;
    }
}

int main(void) {
    double starts[3][N] = {{0, 0, 0, 0, 0, 0}, {1.0, -0.5, 1.5, 0.8, 0.2, 0.9}, {-0.5, -2.0, 3.0, -0.5, 0.5, 2.0}};
    for (int s = 0; s < 3; s++) {
        double x[N], g[N], p[N];
        memcpy(x, starts[s], sizeof x);
        /* H v against FD of the gradient at the start */
        double v[N] = {0.3, -0.6, 0.2, 0.9, -0.1, 0.4}, hv[N], xp[N], xm[N], gp[N], gm[N], h = 1e-6;
        hvp(x, v, hv);
        for (int i = 0; i < N; i++) {
            xp[i] = x[i] + h * v[i];
            xm[i] = x[i] - h * v[i];
        }
        grad(xp, gp, N);
        grad(xm, gm, N);
        for (int i = 0; i < N; i++) check_close("Hv vs FD of the gradient", hv[i], (gp[i] - gm[i]) / (2 * h), FD_RTOL, FD_ATOL);
        int it = 0;
        for (grad(x, g, N); it < 30 && sqrt(dot(g, g)) > 1e-13; it++, grad(x, g, N)) {
            newton_step(x, g, p);
            for (int i = 0; i < N; i++) x[i] += p[i];
        }
        check_close("converges in at most 12 Newton steps", it <= 12, 1, 0, 0);
        for (int i = 0; i < N; i++) check_close("x reaches the minimum c", x[i], c[i], 1e-10, 1e-12);
        check_close("gradient norm at the end", sqrt(dot(g, g)), 0, 0, 1e-12);
    }
    return zyg_report();
}
