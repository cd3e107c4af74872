// Mixed precision: float weights copied with memcpy into a local float buffer, doubles
// copied into a local double buffer, a double accumulation. Each copy's element type is
// clear from the buffers it connects (wl is only ever read as float, xl only as double):
// zyg decides it per copy, from the accesses to the copy's own objects.
// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
#include <string.h>
#include "zyg_check.h"

enum { N = 6 };

double mixed(const float *w, const double *x, int n) {
    float wl[8];
    double xl[8];
    memcpy(wl, w, n * sizeof(float));
    memcpy(xl, x, n * sizeof(double));
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += (double)wl[i] * xl[i] * xl[i] + sin((double)wl[i] * xl[(i + 1) % n]);
    return s;
}

int main(void) {
    float w[N] = {0.5f, -1.0f, 2.0f, 0.25f, 0.75f, -0.5f}, dw[N] = {0};
    double x[N] = {0.3, 0.7, -1.2, 0.9, -0.4, 1.1}, dx[N] = {0};
    __enzyme_autodiff((void *)mixed, enzyme_dup, w, dw, enzyme_dup, x, dx, enzyme_const, N);
    for (int k = 0; k < N; k++) {
        /* exact: the float weights are exact in double */
        double wk = w[k], wp = w[(k + N - 1) % N];
        double want_w = x[k] * x[k] + cos(wk * x[(k + 1) % N]) * x[(k + 1) % N];
        double want_x = 2 * wk * x[k] + cos(wp * x[k]) * wp;
        check_close("dw", dw[k], want_w, 1e-6, 1e-7); /* float shadow: float precision */
        check_close("dx", dx[k], want_x, 1e-12, 1e-14);
    }
    return zyg_report();
}
