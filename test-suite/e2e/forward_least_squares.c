// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Forward mode for least squares: the residual vector of a nonlinear model fit (decaying
// exponential plus an oscillation, parameters in a `dup` array, data `enzyme_const`,
// residuals a `dup` output) gives the Jacobian one column per request (unit directions)
// and J v along any direction; the sum of squares' tangent is 2 r^T J v. Jacobian columns,
// J v and the objective's tangent against central differences; then one Gauss-Newton step
// computed from zyg's Jacobian against the same step from a differenced Jacobian.
#include <string.h>
#include "zyg_check.h"

#define NP 4
#define ND 12

static double residuals(const double *p, const double *t, const double *y, double *r, int n) {
    double ss = 0;
    for (int i = 0; i < n; i++) {
        double model = p[0] * exp(-p[1] * t[i]) + p[2] * sin(p[3] * t[i]);
        r[i] = y[i] - model;
        ss += r[i] * r[i];
    }
    return 0.5 * ss;
}

/* solves the NP x NP system A s = g by Gaussian elimination (A is SPD here) */
static void solve(double A[NP][NP], double *g) {
    for (int k = 0; k < NP; k++)
        for (int i = k + 1; i < NP; i++) {
            double f = A[i][k] / A[k][k];
            for (int j = k; j < NP; j++) A[i][j] -= f * A[k][j];
            g[i] -= f * g[k];
        }
    for (int i = NP - 1; i >= 0; i--) {
        for (int j = i + 1; j < NP; j++) g[i] -= A[i][j] * g[j];
        g[i] /= A[i][i];
    }
}

static void gauss_newton_step(double J[ND][NP], const double *r, double *step) {
    double A[NP][NP];
    for (int a = 0; a < NP; a++) {
        step[a] = 0;
        for (int i = 0; i < ND; i++) step[a] += J[i][a] * r[i];
        for (int b = 0; b < NP; b++) {
            A[a][b] = 0;
            for (int i = 0; i < ND; i++) A[a][b] += J[i][a] * J[i][b];
        }
    }
    solve(A, step);
}

int main(void) {
    double t[ND], y[ND], h = 1e-6;
    for (int i = 0; i < ND; i++) {
        t[i] = 0.25 * i;
        y[i] = 2.0 * exp(-0.7 * t[i]) + 0.4 * sin(2.2 * t[i]) + 0.02 * cos(7.0 * i);
    }
    double starts[3][NP] = {{1.5, 0.5, 0.3, 2.0}, {2.4, 1.0, 0.6, 2.5}, {1.8, 0.6, 0.2, 1.9}};
    for (int q = 0; q < 3; q++) {
        double p[NP], r[NP > ND ? NP : ND], J[ND][NP], Jfd[ND][NP];
        memcpy(p, starts[q], sizeof p);
        for (int c = 0; c < NP; c++) {
            double dp[NP] = {0}, dr[ND], pp[NP], pm[NP], rp[ND], rm[ND];
            dp[c] = 1.0;
            memset(dr, 0, sizeof dr);
            double ds = __enzyme_fwddiff((void *)residuals, enzyme_dup, p, dp, enzyme_const, t, enzyme_const, y, enzyme_dup, r, dr, enzyme_const, ND);
            memcpy(pp, p, sizeof pp), memcpy(pm, p, sizeof pm);
            double hc = ZYG_STEP(p[c]);
            pp[c] += hc, pm[c] -= hc;
            double sp = residuals(pp, t, y, rp, ND), sm = residuals(pm, t, y, rm, ND);
            check_close("objective along a unit direction", ds, (sp - sm) / (2 * hc), FD_RTOL, FD_ATOL);
            double rtj = 0;
            for (int i = 0; i < ND; i++) {
                J[i][c] = dr[i];
                Jfd[i][c] = (rp[i] - rm[i]) / (2 * hc);
                check_close("Jacobian column", dr[i], Jfd[i][c], FD_RTOL, FD_ATOL);
                rtj += r[i] * dr[i];
            }
            check_close("objective tangent = r^T J e_c", ds, rtj, 1e-12, 1e-13);
        }
        /* J v for a general direction */
        double v[NP] = {0.3, -0.6, 0.8, 0.25}, dr[ND], pp[NP], pm[NP], rp[ND], rm[ND];
        for (int a = 0; a < NP; a++) pp[a] = p[a] + h * v[a], pm[a] = p[a] - h * v[a];
        __enzyme_fwddiff((void *)residuals, enzyme_dup, p, v, enzyme_const, t, enzyme_const, y, enzyme_dupnoneed, r, dr, enzyme_const, ND);
        residuals(pp, t, y, rp, ND);
        residuals(pm, t, y, rm, ND);
        for (int i = 0; i < ND; i++) check_close("J v", dr[i], (rp[i] - rm[i]) / (2 * h), FD_RTOL, FD_ATOL);
        /* Gauss-Newton step with each Jacobian (r from a plain call) */
        double step[NP], step_fd[NP];
        residuals(p, t, y, r, ND);
        gauss_newton_step(J, r, step);
        gauss_newton_step(Jfd, r, step_fd);
        for (int a = 0; a < NP; a++) check_close("Gauss-Newton step", step[a], step_fd[a], 1e-5, 1e-7);
    }
    return zyg_report();
}
