// REQUIRES: openmp
// RUN: %grad-run-omp -O0 %s %t -fopenmp | FileCheck %s
// RUN: %grad-run-omp -O2 %s %t -fopenmp | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// A gather through an index array with repeated indices: many iterations, on any thread,
// read the same weight, so their adjoints add into the same place of the weights' shadow
// (atomically). Also the weights as the only active input, with a shared scale by pointer.
#include <math.h>
#include "zyg_omp.h"

#define N 200
#define W 9

static int idx[N];

static double predict(const double *w, const double *x, double *out, const double *scale, int n) {
#pragma omp parallel for schedule(dynamic, 7)
    for (int i = 0; i < n; i++)
        out[i] = *scale * tanh(w[idx[i]] * x[i]);
    double s = 0;
    for (int i = 0; i < n; i++)
        s += (out[i] - 0.3) * (out[i] - 0.3);
    return s;
}

static double x[N];
static double predict_of(const double *w, void *ctx) {
    (void)ctx;
    double out[N], scale = 1.7;
    return predict(w, x, out, &scale, N);
}

int main(void) {
    double w[W], serial[W];
    for (int i = 0; i < N; i++) {
        idx[i] = (i * 5 + i / 3) % W;
        x[i] = cos(0.1 * i);
    }
    for (int j = 0; j < W; j++)
        w[j] = 0.2 * j - 0.7;
    ZYG_FOR_TEAMS(t) {
        double dw[W] = {0}, out[N], dout[N] = {0}, scale = 1.7, dscale = 0;
        __enzyme_autodiff((void *)predict, enzyme_dup, w, dw, enzyme_const, x, enzyme_dup, out, dout, enzyme_dup,
                          &scale, &dscale, enzyme_const, N);
        check_array_fd("predict", predict_of, 0, w, W, dw);
        double want = 0;
        for (int i = 0; i < N; i++)
            want += 2 * (1.7 * tanh(w[idx[i]] * x[i]) - 0.3) * tanh(w[idx[i]] * x[i]);
        check_close("predict, scale", dscale, want, 1e-12, 1e-13);
        if (t == 1)
            for (int j = 0; j < W; j++)
                serial[j] = dw[j];
        check_same_as_serial("predict, teams", dw, serial, W);
    }
    return zyg_report();
}
