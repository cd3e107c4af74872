// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// RUN: %grad-run -O3 %s %t.native -march=native | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Hessian-vector products of a float function, forward over reverse: f(x) = sum_i
// (x[i+1] - x[i]^2)^2 + 0.5 sum_i tanhf(x[i]) in float arithmetic. Checked against the
// closed-form Hessian evaluated in double and against central differences (in float, with
// the larger float step) of the float gradient along v, at three points and three directions.
#include "zyg_check.h"

#define N 8

static float f(const float *x, int n) {
    float s = 0;
    for (int i = 0; i + 1 < n; i++) {
        float a = x[i + 1] - x[i] * x[i];
        s += a * a;
    }
    for (int i = 0; i < n; i++) s += 0.5f * tanhf(x[i]);
    return s;
}

static void grad(const float *x, float *dx, int n) { __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, n); }

static void hvp_exact(const float *x, const float *v, double *hv, int n) {
    for (int i = 0; i < n; i++) {
        double t = tanh((double)x[i]);
        hv[i] = 0.5 * (-2 * t * (1 - t * t)) * v[i];
    }
    for (int i = 0; i + 1 < n; i++) {
        double xi = x[i], a = x[i + 1] - xi * xi;
        double hii = 12 * xi * xi - 4 * (double)x[i + 1], hij = -4 * xi;
        (void)a;
        hv[i] += hii * v[i] + hij * v[i + 1];
        hv[i + 1] += hij * v[i] + 2 * v[i + 1];
    }
}

int main(void) {
    float pts[3][N] = {{0.1f, 0.2f, 0.3f, 0.4f, 0.5f, 0.6f, 0.7f, 0.8f},
                       {-1.0f, 0.5f, 1.25f, -0.75f, 0.3f, 0.9f, -0.4f, 1.1f},
                       {0.6f, -0.2f, 0.9f, 0.15f, -1.3f, 0.45f, 0.8f, -0.05f}};
    float dirs[3][N] = {{1, 0, 0, 0, 0, 0, 0, 0}, {0, 0, 0, 0, 0, 0, 1, 0}, {0.5f, -0.25f, 0.75f, 0.125f, -0.5f, 0.25f, 1, -0.75f}};
    for (int p = 0; p < 3; p++)
        for (int d = 0; d < 3; d++) {
            const float *x = pts[p], *v = dirs[d];
            float dx[N] = {0}, hv[N] = {0};
            double want[N];
            __enzyme_fwddiff((void *)grad, enzyme_dup, x, v, enzyme_dup, dx, hv, enzyme_const, N);
            hvp_exact(x, v, want, N);
            /* float FD of the float gradient: step 1e-2 along v, divided by the float distance */
            float xp[N], xm[N], gp[N] = {0}, gm[N] = {0}, h = 1e-2f;
            for (int i = 0; i < N; i++) {
                xp[i] = x[i] + h * v[i];
                xm[i] = x[i] - h * v[i];
            }
            grad(xp, gp, N);
            grad(xm, gm, N);
            for (int i = 0; i < N; i++) {
                check_close("Hv vs closed form in double", hv[i], want[i], 1e-5, 1e-5);
                check_close("Hv vs float FD of the gradient", hv[i], ((double)gp[i] - gm[i]) / (2.0 * h), FLOAT_RTOL, FLOAT_ATOL);
            }
        }
    return zyg_report();
}
