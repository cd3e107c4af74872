// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// RUN: %grad-run -O3 %s %t.native -march=native | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Hessian-vector products of a nonlinear least-squares loss, forward over reverse: the model
// m(t) = a exp(-b t) + c log(1 + t^2) fitted to 8 data points, loss = 1/2 sum (m - y)^2 over
// the parameters (a, b, c). Checked against the closed-form Hessian J^T J + sum r Hm (with the
// model's own second derivatives) and against central differences of the gradient along v,
// at three parameter vectors and three directions.
#include "zyg_check.h"

#define NT 8
static const double ts[NT] = {0.0, 0.3, 0.7, 1.0, 1.5, 2.2, 3.0, 4.1};
static const double ys[NT] = {2.1, 1.7, 1.4, 1.3, 1.25, 1.5, 1.9, 2.6};

static double loss(const double *p, int nt) {
    double s = 0;
    for (int k = 0; k < nt; k++) {
        double t = ts[k], r = p[0] * exp(-p[1] * t) + p[2] * log(1 + t * t) - ys[k];
        s += 0.5 * r * r;
    }
    return s;
}

static void grad(const double *p, double *dp, int nt) {
    __enzyme_autodiff((void *)loss, enzyme_dup, p, dp, enzyme_const, nt);
}

static void hessian_exact(const double *p, double H[3][3]) {
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) H[i][j] = 0;
    for (int k = 0; k < NT; k++) {
        double t = ts[k], e = exp(-p[1] * t), L = log(1 + t * t);
        double r = p[0] * e + p[2] * L - ys[k];
        double J[3] = {e, -p[0] * t * e, L};
        double Hm[3][3] = {{0, -t * e, 0}, {-t * e, p[0] * t * t * e, 0}, {0, 0, 0}};
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) H[i][j] += J[i] * J[j] + r * Hm[i][j];
    }
}

int main(void) {
    double ps[3][3] = {{2.0, 0.5, 0.3}, {1.0, 1.0, 0.0}, {-0.5, 0.1, 0.8}};
    double vs[3][3] = {{1, 0, 0}, {0, 1, 0}, {0.3, -0.8, 0.5}};
    for (int q = 0; q < 3; q++)
        for (int d = 0; d < 3; d++) {
            const double *p = ps[q], *v = vs[d];
            double dp[3] = {0}, hv[3] = {0}, H[3][3];
            __enzyme_fwddiff((void *)grad, enzyme_dup, p, v, enzyme_dup, dp, hv, enzyme_const, NT);
            hessian_exact(p, H);
            double h = 1e-6, pp[3], pm[3], gp[3] = {0}, gm[3] = {0};
            for (int i = 0; i < 3; i++) {
                pp[i] = p[i] + h * v[i];
                pm[i] = p[i] - h * v[i];
            }
            grad(pp, gp, NT);
            grad(pm, gm, NT);
            for (int i = 0; i < 3; i++) {
                double want = H[i][0] * v[0] + H[i][1] * v[1] + H[i][2] * v[2];
                check_close("Hv vs J^T J + sum r Hm", hv[i], want, 1e-11, 1e-12);
                check_close("Hv vs FD of the gradient", hv[i], (gp[i] - gm[i]) / (2 * h), FD_RTOL, FD_ATOL);
            }
        }
    return zyg_report();
}
