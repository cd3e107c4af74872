// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Registered forward derivatives: Enzyme's `__enzyme_register_derivative_*` returning the
// tangent (zyg calls the function for the result), zyg's `__zyg_tangent_*` returning
// {result, tangent} (replacing the call), one for a function that writes its result to
// memory (tangent through the shadow), called in a loop. Each is checked against central
// differences, and one registers a deliberately different derivative (a straight-through
// estimator for rounding), checked against its own formula: zyg must use the rule, not the body.
#include "zyg_check.h"

__attribute__((noinline)) double cube(double x) { return x * x * x; }
double d_cube(double x, double dx) { return 3 * x * x * dx; }
void *__enzyme_register_derivative_cube[2] = {(void *)cube, (void *)d_cube};

typedef struct { double value, tangent; } dual;
__attribute__((noinline)) double weighted(double x, const double *w) { return w[0] * x * x + w[1]; }
dual d_weighted(double x, double dx, const double *w, const double *dw) {
    dual r = {w[0] * x * x + w[1], 2 * w[0] * x * dx + dw[0] * x * x + dw[1]};
    return r;
}
void *__zyg_tangent_weighted[2] = {(void *)weighted, (void *)d_weighted};

/* out[0] = exp(x) * y, out[1] = x / y */
__attribute__((noinline)) void pair_out(double x, double y, double *out) {
    out[0] = exp(x) * y;
    out[1] = x / y;
}
void d_pair_out(double x, double dx, double y, double dy, double *out, double *dout) {
    pair_out(x, y, out);
    dout[0] = exp(x) * (dx * y + dy);
    dout[1] = (dx * y - x * dy) / (y * y);
}
void *__enzyme_register_derivative_pair_out[2] = {(void *)pair_out, (void *)d_pair_out};

/* rounding, whose registered derivative is the identity's (straight-through) */
__attribute__((noinline)) double quantize(double x) { return floor(x * 8.0 + 0.5) / 8.0; }
double d_quantize(double x, double dx) { return dx; }
void *__enzyme_register_derivative_quantize[2] = {(void *)quantize, (void *)d_quantize};

static double model(double x, const double *w, int n) {
    double s = 0, out[2];
    for (int i = 1; i <= n; i++) {
        pair_out(x / i, weighted(x, w), out);
        s += sin(cube(x) / i) + out[0] * out[1];
    }
    return s;
}
static double model_x(double x, double w0) { double w[2] = {w0, 0.5}; return model(x, w, 3); }

static double straight_through(double x) { return quantize(x) * x; }

int main(void) {
    double pts[3] = {0.3, -0.6, 0.9};
    for (int k = 0; k < 3; k++) {
        double x = pts[k], w[2] = {1.5, 0.5}, dw[2] = {0, 0}, h = 1e-6;
        double tx = __enzyme_fwddiff((void *)model, x, 1.0, enzyme_dup, w, dw, enzyme_const, 3);
        check_close("d/dx", tx, (model_x(x + h, 1.5) - model_x(x - h, 1.5)) / (2 * h), FD_RTOL, FD_ATOL);
        dw[0] = 1.0;
        double tw = __enzyme_fwddiff((void *)model, x, 0.0, enzyme_dup, w, dw, enzyme_const, 3);
        check_close("d/dw0", tw, (model_x(x, 1.5 + h) - model_x(x, 1.5 - h)) / (2 * h), FD_RTOL, FD_ATOL);
        /* d/dx quantize(x) * x with the straight-through rule: 1 * x + quantize(x) */
        double ts = __enzyme_fwddiff((void *)straight_through, x, 1.0);
        check_close("straight-through rule used", ts, x + quantize(x), 1e-15, 0);
    }
    return zyg_report();
}
