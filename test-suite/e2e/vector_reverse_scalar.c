// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Vector reverse mode over scalars: `enzyme_width, W` with `out` (active) float arguments,
// whose gradients come back W per argument, lane 0 first, in the struct the request
// declares; outputs written through a `dup` pointer are each lane's own seed, the float
// result is seeded 1 in every lane. Loops with float phis, branches, a noinline callee
// taking and returning floats (its width-W adjoint gets each lane's result adjoint and
// gives back each lane's gradients) and a recursive one. Each lane against width-1 reverse
// mode and central differences.
#include <string.h>
#include "zyg_check.h"

extern int enzyme_width, enzyme_dupv;
typedef struct { double dx[2], dy[2]; } grads2x2;
grads2x2 __enzyme_autodiff_2x2(void *, ...) __asm__("__enzyme_autodiff");
typedef struct { double dx[4]; } grads4;
grads4 __enzyme_autodiff_4(void *, ...) __asm__("__enzyme_autodiff");

__attribute__((noinline)) static double bump(double a, double b) { return a > 0.2 ? a * exp(b) : sin(a) * b + a * a; }

static double power(double x, int n) { return n == 0 ? 1.0 : x * power(x, n - 1); }

/* out[0], out[1] written; returns a scalar too */
static double f(double x, double y, double *out) {
    double s = 0, t = y;
    for (int i = 1; i <= 4; i++) {
        s += bump(x * i * 0.1, t);
        t = t * 0.9 + sin(s) * 0.05;
        if (s > 1.0) s = s * 0.5;
    }
    out[0] = s * y + power(x, 3);
    out[1] = cos(t) * x;
    return s + t * t;
}

static double fx(double x, double y, const double *ybar) {
    double out[2];
    double r = f(x, y, out);
    return r + ybar[0] * out[0] + ybar[1] * out[1];
}

static double g(double x) { return bump(x, x * x) + power(x, 4); }

int main(void) {
    double pts[3][2] = {{0.3, 0.7}, {-0.5, 1.2}, {1.1, -0.4}};
    for (int p = 0; p < 3; p++) {
        double x = pts[p][0], y = pts[p][1], out[2];
        /* lane 0 seeds out with (1, 0), lane 1 with (0.3, -2) */
        double seed[2][2] = {{1, 0}, {0.3, -2}}, d[2][2];
        memcpy(d, seed, sizeof d);
        grads2x2 g2 = __enzyme_autodiff_2x2((void *)f, enzyme_width, 2, x, y, enzyme_dupv, sizeof d[0], out, d);
        for (int l = 0; l < 2; l++) {
            double one_d[2];
            memcpy(one_d, seed[l], sizeof one_d);
            zyg_grad2 one = __enzyme_autodiff2((void *)f, x, y, enzyme_dup, out, one_d);
            double h = 1e-6;
            double wx = (fx(x + h, y, seed[l]) - fx(x - h, y, seed[l])) / (2 * h);
            double wy = (fx(x, y + h, seed[l]) - fx(x, y - h, seed[l])) / (2 * h);
            check_close("dx lane = width 1", g2.dx[l], one.d0, EXACT_RTOL, EXACT_ATOL);
            check_close("dy lane = width 1", g2.dy[l], one.d1, EXACT_RTOL, EXACT_ATOL);
            check_close("dx lane vs FD", g2.dx[l], wx, FD_RTOL, FD_ATOL);
            check_close("dy lane vs FD", g2.dy[l], wy, FD_RTOL, FD_ATOL);
        }
        /* a float result only: every lane is the gradient */
        grads4 g4 = __enzyme_autodiff_4((void *)g, enzyme_width, 4, x);
        for (int l = 0; l < 4; l++) check_close("g: every lane", g4.dx[l], FD1(g, x), FD_RTOL, FD_ATOL);
    }
    return zyg_report();
}
