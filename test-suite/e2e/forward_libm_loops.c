// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// RUN: %grad-run -O3 %s %t.native -march=native | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Forward mode through libm calls inside loops over `dup` arrays: exp, log, pow (both
// arguments active), sqrt, tanh, atan2, fmax/fmin (clamps whose active side changes along
// the array), fabs, hypot and cbrt; the loop writes an output array and returns a sum.
// Points keep every fmax/fmin/fabs away from its kink, so central differences along the
// direction are accurate.
#include <string.h>
#include "zyg_check.h"

#define N 9

static double features(const double *x, const double *y, double *out, double alpha, int n) {
    double total = 0;
    for (int i = 0; i < n; i++) {
        double a = x[i], b = y[i];
        double r = hypot(a, b);
        double th = atan2(b, a);
        double c = fmax(a * b, -0.2) + fmin(a + b, 0.9);    /* clamps */
        double p = pow(fabs(a) + 0.5, alpha * b);            /* both pow arguments active */
        double l = log(1.0 + r * r) * tanh(alpha * a);
        double e = exp(-alpha * fabs(b)) * sqrt(1.0 + a * a) + cbrt(r + 1.0);
        out[i] = th * c + p - l;
        total += out[i] * e;
    }
    return total;
}

/* a loop-carried recurrence of libm calls */
static double orbit(double u, double v, int steps) {
    for (int k = 0; k < steps; k++) {
        double nu = 0.9 * tanh(u + 0.3 * v) + 0.1 * atan2(v, 1.0 + u * u);
        double nv = 0.5 * log(1.0 + exp(v - u)) - 0.2 * sqrt(1.0 + u * u);
        u = nu;
        v = fmin(fmax(nv, -2.0), 2.0);
    }
    return u * v + hypot(u, v);
}

int main(void) {
    double xs[2][N] = {{0.3, -0.7, 1.2, 0.45, -1.4, 0.9, 2.1, -0.35, 0.65}, {1.1, 0.25, -0.55, 1.6, 0.8, -0.95, 0.15, 1.35, -1.75}};
    double ys[2][N] = {{0.8, 1.1, -0.4, -1.3, 0.35, 0.6, -0.9, 1.5, 0.2}, {-0.6, 0.95, 1.25, 0.3, -0.45, 0.7, 1.8, -1.2, 0.55}};
    double h = 1e-6;
    for (int p = 0; p < 2; p++)
        for (int d = 0; d < 3; d++) {
            double x[N], y[N], dx[N], dy[N], out[N], dout[N], xp[N], xm[N], yp[N], ym[N], op[N], om[N];
            memcpy(x, xs[p], sizeof x);
            memcpy(y, ys[p], sizeof y);
            for (int i = 0; i < N; i++) {
                dx[i] = d == 0 ? (i == 2) : d == 1 ? 0.0 : 0.1 * (i % 4) - 0.15;
                dy[i] = d == 1 ? 0.25 - 0.05 * i : d == 2 ? 0.3 * ((i + 1) % 3) - 0.3 : 0.0;
                xp[i] = x[i] + h * dx[i], xm[i] = x[i] - h * dx[i];
                yp[i] = y[i] + h * dy[i], ym[i] = y[i] - h * dy[i];
            }
            double alpha = 0.8 + 0.3 * p, da = d == 2 ? 0.6 : 0.0;
            double t = __enzyme_fwddiff((void *)features, enzyme_dup, x, dx, enzyme_dup, y, dy, enzyme_dup, out, dout,
                                        alpha, da, enzyme_const, N);
            double fp = features(xp, yp, op, alpha + h * da, N), fm = features(xm, ym, om, alpha - h * da, N);
            check_close("features total", t, (fp - fm) / (2 * h), FD_RTOL, FD_ATOL);
            for (int i = 0; i < N; i++) check_close("features out", dout[i], (op[i] - om[i]) / (2 * h), FD_RTOL, FD_ATOL);
        }
    double starts[3][2] = {{0.4, 0.9}, {-1.2, 0.3}, {2.0, -1.5}};
    for (int p = 0; p < 3; p++) {
        double u = starts[p][0], v = starts[p][1], du = 0.7, dv = -0.4 + 0.5 * p;
        double t = __enzyme_fwddiff((void *)orbit, u, du, v, dv, enzyme_const, 12);
        double want = (orbit(u + h * du, v + h * dv, 12) - orbit(u - h * du, v - h * dv, 12)) / (2 * h);
        check_close("orbit", t, want, FD_RTOL, FD_ATOL);
    }
    return zyg_report();
}
