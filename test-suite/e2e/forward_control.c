// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Forward mode through control flow: a loop left by a float test (its trip count depends
// on the input), a loop with a break, a switch, nested loops over a matrix, a global
// read and written, and a float result of an integer-indexed table. Each tangent is
// checked against central differences along the same direction.
#include "zyg_check.h"

static double weights[4] = {0.5, -1.25, 2.0, 0.75};
static double last_scale;

/* Halves v until it is below 1, then squares and sums the history. */
static double halving(double v) {
    double acc = 0;
    while (v > 1.0) {
        acc += v * v;
        v *= 0.5;
    }
    return acc + v;
}

static double matrix(const double *a, int n, double t) {
    double s = 0;
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++) {
            double e = a[i * n + j] * weights[(i + j) % 4];
            if (e * t > 3.0) break;
            s += e * t + sin(e);
        }
        switch (i % 3) {
        case 0: s *= 1.1; break;
        case 1: s -= t; break;
        default: s = s / (1.0 + t * t);
        }
    }
    last_scale = s * 0.5;
    return s + last_scale * t;
}

static double run(const double *a, double t, double v) { return matrix(a, 3, t) + halving(v * t); }

int main(void) {
    double a[9] = {0.3, -0.2, 0.9, 1.1, 0.4, -0.7, 0.25, 0.6, -1.3};
    double ts[] = {0.8, 1.7, -0.4};
    for (int k = 0; k < 3; k++) {
        double t = ts[k], v = 9.5 + k;
        double da[9], dt = 0.6, dv = -0.3;
        for (int i = 0; i < 9; i++) da[i] = 0.1 * (i + 1) - 0.45;
        double got = __enzyme_fwddiff((void *)run, enzyme_dup, a, da, t, dt, v, dv);
        double h = 1e-6, ap[9], am[9];
        for (int i = 0; i < 9; i++) {
            ap[i] = a[i] + h * da[i];
            am[i] = a[i] - h * da[i];
        }
        double want = (run(ap, t + h * dt, v + h * dv) - run(am, t - h * dt, v - h * dv)) / (2 * h);
        check_close("tangent along (da, dt, dv)", got, want, FD_RTOL, FD_ATOL);
        double only_v = __enzyme_fwddiff((void *)run, enzyme_const, a, enzyme_const, t, v, 1.0);
        double want_v = (run(a, t, v + h) - run(a, t, v - h)) / (2 * h);
        check_close("tangent along v only", only_v, want_v, FD_RTOL, FD_ATOL);
    }
    return zyg_report();
}
