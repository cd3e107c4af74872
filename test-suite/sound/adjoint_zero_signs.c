// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
/* zyg clears the shadows of locals to -0.0 (the identity of addition, so that LLVM folds the
 * next `load; fadd; store` of the slot) and starts the lanes of vector adjoints at -0.0; the
 * shadows a caller can read are cleared to +0.0. Checked here: the derivatives themselves
 * (exact), and that a derivative that is exactly zero reaches the caller as +0.0, as plain
 * evaluation of the adjoint sums from +0.0 shadows gives, also where every contribution is
 * -0.0 (a negative seed times a zero partial), and that an output's shadow is left +0.0. */
#include "zyg_check.h"
#include <string.h>

typedef double v2 __attribute__((vector_size(16)));

/* A local array, written by a callee that stays a call, one element overwritten with a
 * constant: x[1]'s derivative is exactly zero. */
__attribute__((noinline)) static void squares(const double *x, double *t) {
    for (int i = 0; i < 3; i++)
        t[i] = x[i] * x[i];
}
static void f_local(const double *x, double *out) {
    double t[3];
    squares(x, t);
    t[1] = 2.0;
    out[0] = t[0] + t[1] * x[2] + t[2];
}

/* Vector lanes: x[1] reaches only the lane that is dropped; x[0] is multiplied by zero. */
static double f_lanes(const double *x) {
    v2 v = {x[0], x[1]};
    v2 w = v * v;
    v2 s = __builtin_shufflevector(w, w, 0, 0);
    return s[1] + 0.0 * x[0] + x[2] * x[2];
}

/* A scalar whose derivative is zero, returned by value (an active argument). */
static double f_active(double a, double b) { return a * b + 0.0 * b; }

static int plus_zero(double d) { return d == 0.0 && !signbit(d); }

int main(void) {
    const double xs[3][3] = {{0.5, -1.25, 2.0}, {-3.0, 0.75, -0.5}, {1.5, 2.5, 3.5}};
    for (int k = 0; k < 3; k++) {
        const double *x = xs[k];
        for (int s = 0; s < 2; s++) {
            double seed = s ? -1.5 : 1.0; /* negative: every zero contribution is -0.0 */
            double dx[3] = {0, 0, 0}, out[1], dout[1] = {seed};
            __enzyme_autodiff((void *)f_local, enzyme_dup, x, dx, enzyme_dup, out, dout);
            check_close("local: d/dx0", dx[0], seed * 2 * x[0], EXACT_RTOL, EXACT_ATOL);
            check_close("local: d/dx1 is +0.0", plus_zero(dx[1]), 1, 0, 0);
            check_close("local: d/dx2", dx[2], seed * (2.0 + 2 * x[2]), EXACT_RTOL, EXACT_ATOL);
            check_close("local: the output's shadow is cleared to +0.0", plus_zero(dout[0]), 1, 0, 0);

            double gx[3] = {0, 0, 0};
            double r = __enzyme_autodiff((void *)f_lanes, enzyme_dup, x, gx);
            (void)r;
            check_close("lanes: d/dx0", gx[0], 2 * x[0], EXACT_RTOL, EXACT_ATOL);
            check_close("lanes: d/dx1 is +0.0", plus_zero(gx[1]), 1, 0, 0);
            check_close("lanes: d/dx2", gx[2], 2 * x[2], EXACT_RTOL, EXACT_ATOL);
        }
        zyg_grad2 g = __enzyme_autodiff2((void *)f_active, 0.0, x[1]);
        check_close("active: d/da", g.d0, x[1], EXACT_RTOL, EXACT_ATOL);
        check_close("active: d/db at a = 0 is +0.0", plus_zero(g.d1), 1, 0, 0);
    }
    return zyg_report();
}
