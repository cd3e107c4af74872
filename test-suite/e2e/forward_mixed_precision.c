// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Forward mode through mixed float/double code: float storage accumulated in double
// (fpext), a double computation stored into a float output array (fptrunc), a float
// `dup` array and a double `dup` array in one call, and a double result of float
// arithmetic. Tangents against central differences in double of the same program, with a
// tolerance for float rounding.
#include <string.h>
#include "zyg_check.h"

#define N 8

/* y[i] = (float)(w[i] * exp(-x[i]^2)); returns sum_i w[i] * x[i] accumulated in double */
static double mix(const float *x, const double *w, float *y, double s, int n) {
    double acc = 0;
    for (int i = 0; i < n; i++) {
        double xi = x[i];
        float e = expf(-x[i] * x[i] * (float)s);
        y[i] = (float)(w[i] * e);
        acc += w[i] * xi + (double)(x[i] * x[i]) * s;
    }
    return acc + sqrt(s);
}

/* all in double along the same direction, for the differences */
static double mix_double(const float *x, const float *dx, const double *w, const double *dw, double t, double s, double *y) {
    double acc = 0;
    for (int i = 0; i < N; i++) {
        double xi = x[i] + t * dx[i], wi = w[i] + t * dw[i];
        y[i] = wi * exp(-xi * xi * s);
        acc += wi * xi + xi * xi * s;
    }
    return acc + sqrt(s);
}

int main(void) {
    float x[N], dx[N], y[N], dy[N];
    double w[N], dw[N], yp[N], ym[N], h = 1e-6;
    for (int q = 0; q < 3; q++) {
        for (int i = 0; i < N; i++) {
            x[i] = 0.15f * i - 0.5f + 0.1f * q;
            w[i] = 1.0 - 0.2 * i + 0.05 * q;
            dx[i] = q == 0 ? (i == 3) : 0.3f - 0.1f * (i % 4);
            dw[i] = q == 1 ? 0.0 : 0.2 * (i % 3) - 0.1;
        }
        double s = 0.7 + 0.4 * q, ds = q == 2 ? 0.5 : -0.25;
        memset(dy, 0, sizeof dy);
        double t = __enzyme_fwddiff((void *)mix, enzyme_dup, x, dx, enzyme_dup, w, dw, enzyme_dup, y, dy, s, ds, enzyme_const, N);
        double rp = mix_double(x, dx, w, dw, h, s + h * ds, yp), rm = mix_double(x, dx, w, dw, -h, s - h * ds, ym);
        check_close("mixed result (double)", t, (rp - rm) / (2 * h), 1e-5, 1e-5);
        for (int i = 0; i < N; i++) check_close("mixed y (float)", dy[i], (yp[i] - ym[i]) / (2 * h), 1e-5, 1e-6);
    }
    return zyg_report();
}
