// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// A dense Hessian in one sweep: vector forward mode of width n over a reverse-mode gradient
// (forward over reverse with n lanes; each lane mirrors the inner gradient's tape stacks on
// a shadow stack of its own). Column j is H e_j; checked against width-1 Hessian-vector
// products (exactly) and central differences of the gradient, and for symmetry. The
// gradient itself (the primal's output) is computed once, not n times.
#include "zyg_check.h"

extern int enzyme_width, enzyme_dupv;
void __enzyme_fwddiff_v(void *, ...) __asm__("__enzyme_fwddiff");
void __enzyme_autodiff_v(void *, ...) __asm__("__enzyme_autodiff");

#define N 5

/* loops (tape stacks in the gradient), a helper, a branch */
static double pair(double a, double b) { return a > b ? a * exp(0.3 * b) : b * log1p(a * a); }

static double f(const double *x, int n) {
    double s = 0;
    for (int i = 0; i < n; i++) s += pair(x[i], x[(i + 1) % n]) + x[i] * x[i] * x[i] / 6;
    double q = 0;
    for (int i = 0; i < n; i++) q += x[i] * (i + 1);
    return s + sin(q);
}

static void grad(const double *x, double *g, int n) { __enzyme_autodiff_v((void *)f, enzyme_dup, x, g, enzyme_const, n); }

static void check_at(const double *x0) {
    double x[N], id[N][N] = {{0}}, g[N] = {0}, H[N][N] = {{0}};
    for (int i = 0; i < N; i++) x[i] = x0[i], id[i][i] = 1;
    __enzyme_fwddiff_v((void *)grad, enzyme_width, N, enzyme_dupv, sizeof id[0], x, id, enzyme_dupv, sizeof H[0], g, H,
                       enzyme_const, N);
    double g1[N] = {0};
    grad(x, g1, N);
    for (int i = 0; i < N; i++) check_close("gradient once", g[i], g1[i], EXACT_RTOL, EXACT_ATOL);
    for (int j = 0; j < N; j++) {
        double hv[N] = {0}, gg[N] = {0}, xp[N], xm[N], gp[N] = {0}, gm[N] = {0};
        __enzyme_fwddiff_v((void *)grad, enzyme_dup, x, id[j], enzyme_dup, gg, hv, enzyme_const, N);
        for (int i = 0; i < N; i++) xp[i] = x[i] + (i == j) * 1e-6, xm[i] = x[i] - (i == j) * 1e-6;
        grad(xp, gp, N);
        grad(xm, gm, N);
        for (int i = 0; i < N; i++) {
            check_close("H column = width-1 HVP", H[j][i], hv[i], EXACT_RTOL, EXACT_ATOL);
            check_close("H column vs FD of the gradient", H[j][i], (gp[i] - gm[i]) / 2e-6, 1e-5, 1e-6);
            check_close("H symmetric", H[j][i], H[i][j], 1e-12, 1e-13);
        }
    }
}

int main(void) {
    double a[N] = {0.1, 0.5, -0.3, 0.8, 1.2}, b[N] = {-0.7, 0.2, 0.9, 0.0, 0.4}, c[N] = {1.5, 1.1, -1.2, 0.3, -0.2};
    check_at(a);
    check_at(b);
    check_at(c);
    return zyg_report();
}
