// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Forward mode through calls: a chain of helpers four deep, static inline helpers, a
// noinline callee called from two sites with different activity (once with an active
// and once with a constant argument, once with a `dup` and once with a constant array),
// a helper writing through an output pointer, and a helper whose result is unused. Each
// tangent against central differences along the same direction.
#include <string.h>
#include "zyg_check.h"

static inline double sq(double v) { return v * v; }
static inline double softplus(double v) { return log1p(exp(v)); }

static double level3(double a, double b) { return softplus(a * b) - sq(a - b); }
static double level2(double a, double b) { return level3(a + 0.5, b) * level3(b, a * 0.3); }
static double level1(double a, double b) { return sqrt(1.0 + sq(level2(a, b))); }

/* called from two sites with different activity */
__attribute__((noinline)) static double weigh(const double *w, const double *v, double s, int n) {
    double acc = 0;
    for (int i = 0; i < n; i++) acc += w[i] * tanh(s * v[i]);
    return acc;
}

__attribute__((noinline)) static void split(double v, double *hi, double *lo) {
    *hi = v * v * 0.5;
    *lo = sin(v) - *hi;
}

static double counter;
__attribute__((noinline)) static double unused_result(double v) {
    counter += 1;
    return v * 3.0;
}

static double model(const double *x, const double *w, double s, int n) {
    static const double fixed[4] = {0.25, -0.5, 0.75, 1.0};
    double a = weigh(w, x, s, n);        /* w, x, s all may carry tangents */
    double b = weigh(fixed, x, 1.3, n);  /* constant weights and constant s */
    double hi, lo;
    split(a - b, &hi, &lo);
    unused_result(a);
    return level1(a, b) + hi * lo + level2(s, x[0]);
}

int main(void) {
    double xs[2][4] = {{0.3, -0.5, 0.8, 1.1}, {-0.7, 0.2, 0.45, -1.0}};
    double ws[4] = {0.4, 1.2, -0.3, 0.9};
    double dirs[3][9] = {{1, 0, 0, 0, 0, 0, 0, 0, 0}, {0, 0, 0, 0, 0, 0, 1, 0, 0}, {0.2, -0.1, 0.4, 0.3, -0.5, 0.6, 0.1, 0.2, -0.3}};
    double h = 1e-6;
    for (int p = 0; p < 2; p++)
        for (int d = 0; d < 3; d++) {
            double x[4], w[4], dx[4], dw[4], xp[4], xm[4], wp[4], wm[4];
            memcpy(x, xs[p], sizeof x);
            memcpy(w, ws, sizeof w);
            for (int i = 0; i < 4; i++) {
                dx[i] = dirs[d][i];
                dw[i] = dirs[d][4 + i] * (i < 2) + dirs[d][(i + 5) % 9] * (i >= 2);
                xp[i] = x[i] + h * dx[i], xm[i] = x[i] - h * dx[i];
                wp[i] = w[i] + h * dw[i], wm[i] = w[i] - h * dw[i];
            }
            double s = 0.8 + 0.2 * p, ds = dirs[d][8];
            double c0 = counter;
            double t = __enzyme_fwddiff((void *)model, enzyme_dup, x, dx, enzyme_dup, w, dw, s, ds, enzyme_const, 4);
            check_close("the unused call's side effect ran once", counter - c0, 1, 0, 0);
            double want = (model(xp, wp, s + h * ds, 4) - model(xm, wm, s - h * ds, 4)) / (2 * h);
            check_close("model along (dx, dw, ds)", t, want, FD_RTOL, FD_ATOL);
            /* w constant this time: the callee's other activity pattern at the entry */
            t = __enzyme_fwddiff((void *)model, enzyme_dup, x, dx, enzyme_const, w, s, ds, enzyme_const, 4);
            want = (model(xp, w, s + h * ds, 4) - model(xm, w, s - h * ds, 4)) / (2 * h);
            check_close("model, w const", t, want, FD_RTOL, FD_ATOL);
            /* the helper chain on its own */
            double a = x[0] + 0.9, b = x[1] - 0.2;
            t = __enzyme_fwddiff((void *)level1, a, dx[0], b, 0.7);
            want = (level1(a + h * dx[0], b + h * 0.7) - level1(a - h * dx[0], b - h * 0.7)) / (2 * h);
            check_close("level1", t, want, FD_RTOL, FD_ATOL);
        }
    return zyg_report();
}
