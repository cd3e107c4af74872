// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// RUN: %grad-run -O3 %s %t.native -march=native | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Forward mode through an ODE integrator: classical RK4 on a damped pendulum with a
// forcing term and on a 3-species Lotka-Volterra system (state in a `dup` array, stage
// vectors on the stack, right-hand side a helper writing through a pointer), over many
// steps. The tangents of the final state along a direction in (initial state, parameters)
// are the sensitivities; checked against central differences of the same integration.
#include <string.h>
#include "zyg_check.h"

typedef struct { double damping, omega2, force; } pendulum;

static void pend_rhs(const double *y, double *dy, const pendulum *p, double t) {
    dy[0] = y[1];
    dy[1] = -p->damping * y[1] - p->omega2 * sin(y[0]) + p->force * cos(1.3 * t);
}

/* integrates y (2 entries) in place; returns the energy at the end */
static double pend_integrate(double *y, const pendulum *p, double dt, int steps) {
    double k1[2], k2[2], k3[2], k4[2], tmp[2], t = 0;
    for (int s = 0; s < steps; s++) {
        pend_rhs(y, k1, p, t);
        for (int i = 0; i < 2; i++) tmp[i] = y[i] + 0.5 * dt * k1[i];
        pend_rhs(tmp, k2, p, t + 0.5 * dt);
        for (int i = 0; i < 2; i++) tmp[i] = y[i] + 0.5 * dt * k2[i];
        pend_rhs(tmp, k3, p, t + 0.5 * dt);
        for (int i = 0; i < 2; i++) tmp[i] = y[i] + dt * k3[i];
        pend_rhs(tmp, k4, p, t + dt);
        for (int i = 0; i < 2; i++) y[i] += dt / 6.0 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
        t += dt;
    }
    return 0.5 * y[1] * y[1] + p->omega2 * (1 - cos(y[0]));
}

#define S 3
static void lv_rhs(const double *u, double *du, const double *a, const double *b) {
    for (int i = 0; i < S; i++) {
        double inter = 0;
        for (int j = 0; j < S; j++) inter += b[i * S + j] * u[j];
        du[i] = u[i] * (a[i] - inter);
    }
}

static void lv_integrate(double *u, const double *a, const double *b, double dt, int steps) {
    double k[4][S], tmp[S];
    const double c[4] = {0.0, 0.5, 0.5, 1.0};
    for (int s = 0; s < steps; s++) {
        for (int st = 0; st < 4; st++) {
            for (int i = 0; i < S; i++) tmp[i] = u[i] + (st ? c[st] * dt * k[st - 1][i] : 0.0);
            lv_rhs(tmp, k[st], a, b);
        }
        for (int i = 0; i < S; i++) u[i] += dt / 6.0 * (k[0][i] + 2 * k[1][i] + 2 * k[2][i] + k[3][i]);
    }
}

int main(void) {
    double h = 1e-6;
    double starts[3][2] = {{0.4, 0.0}, {1.2, -0.5}, {-0.8, 1.1}};
    for (int q = 0; q < 3; q++) {
        pendulum p = {0.15, 4.0, 0.3}, dp = {q == 1 ? 1.0 : 0.0, q == 2 ? -0.5 : 0.0, 0.2 * q};
        double y[2] = {starts[q][0], starts[q][1]}, dy[2] = {q == 0 ? 1.0 : 0.3, q == 0 ? 0.0 : -0.2};
        double y0[2] = {y[0], y[1]}, d0[2] = {dy[0], dy[1]};
        double t = __enzyme_fwddiff((void *)pend_integrate, enzyme_dup, y, dy, enzyme_dup, &p, &dp, enzyme_const, 0.01, enzyme_const, 300);
        pendulum pp = {p.damping + h * dp.damping, p.omega2 + h * dp.omega2, p.force + h * dp.force};
        pendulum pm = {p.damping - h * dp.damping, p.omega2 - h * dp.omega2, p.force - h * dp.force};
        double yp[2] = {y0[0] + h * d0[0], y0[1] + h * d0[1]}, ym[2] = {y0[0] - h * d0[0], y0[1] - h * d0[1]};
        double ep = pend_integrate(yp, &pp, 0.01, 300), em = pend_integrate(ym, &pm, 0.01, 300);
        check_close("pendulum energy", t, (ep - em) / (2 * h), FD_RTOL, FD_ATOL);
        check_close("pendulum angle", dy[0], (yp[0] - ym[0]) / (2 * h), FD_RTOL, FD_ATOL);
        check_close("pendulum velocity", dy[1], (yp[1] - ym[1]) / (2 * h), FD_RTOL, FD_ATOL);

        double u[S] = {0.9 + 0.1 * q, 0.5, 0.3 + 0.2 * q}, du[S], a[S] = {1.1, -0.4, 0.6}, da[S], b[S * S], db[S * S];
        for (int i = 0; i < S; i++) du[i] = q == 0 ? (i == 1) : 0.2 * i - 0.1, da[i] = q == 2 ? 0.3 : 0.0;
        for (int i = 0; i < S * S; i++) b[i] = 0.2 + 0.1 * ((i * 5) % 7), db[i] = q == 1 ? 0.05 * (i % 3) - 0.04 : 0.0;
        double up[S], um[S], ap[S], am[S], bp[S * S], bm[S * S];
        for (int i = 0; i < S; i++) up[i] = u[i] + h * du[i], um[i] = u[i] - h * du[i], ap[i] = a[i] + h * da[i], am[i] = a[i] - h * da[i];
        for (int i = 0; i < S * S; i++) bp[i] = b[i] + h * db[i], bm[i] = b[i] - h * db[i];
        __enzyme_fwddiff((void *)lv_integrate, enzyme_dup, u, du, enzyme_dup, a, da, enzyme_dup, b, db, enzyme_const, 0.02,
                         enzyme_const, 200);
        lv_integrate(up, ap, bp, 0.02, 200);
        lv_integrate(um, am, bm, 0.02, 200);
        for (int i = 0; i < S; i++) check_close("Lotka-Volterra sensitivity", du[i], (up[i] - um[i]) / (2 * h), FD_RTOL, FD_ATOL);
    }
    return zyg_report();
}
