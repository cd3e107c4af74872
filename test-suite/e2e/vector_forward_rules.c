// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// RUN: %grad-run -O3 %s %t.native -march=native | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Vector forward mode through registered forward derivatives (called once per lane, with
// that lane's tangents and shadows: Enzyme's returning the tangent, zyg's returning
// {result, tangent}, one writing through a shadow, and a straight-through rule that differs
// from the body), and through loops LLVM vectorises at -O3 (lanes of <N x double> tangents).
// Each lane against width-1 forward mode (exactly) and central differences.
#include "zyg_check.h"

extern int enzyme_width, enzyme_dupv;
typedef struct { double d[3]; } t3;
t3 __enzyme_fwddiff3(void *, ...) __asm__("__enzyme_fwddiff");

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

__attribute__((noinline)) double quantize(double x) { return floor(x * 8.0 + 0.5) / 8.0; }
double d_quantize(double x, double dx) { return dx; }
void *__enzyme_register_derivative_quantize[2] = {(void *)quantize, (void *)d_quantize};

#define M 37 /* not a multiple of any vector width: the loops keep a remainder */

/* vectorisable loops: a scaled square sum and an axpy-like update read back */
static double simd_part(const double *v, double a) {
    double t[M], s = 0;
    for (int i = 0; i < M; i++) t[i] = a * v[i] + v[(i + 1) % M] * v[i];
    for (int i = 0; i < M; i++) s += t[i] * t[i];
    return s;
}

static double model(double x, const double *w, const double *v) {
    double s = 0, out[2];
    for (int i = 1; i <= 3; i++) {
        pair_out(x / i, weighted(x, w), out);
        s += sin(cube(x) / i) + out[0] * out[1];
    }
    return s + quantize(x) * x + 1e-2 * simd_part(v, x * w[0]);
}

int main(void) {
    double w[2] = {1.5, 0.5}, v[M];
    for (int i = 0; i < M; i++) v[i] = sin(0.3 * i) + 0.1;
    /* lane 0: x; lane 1: w[0]; lane 2: v[4] and x together */
    double dw[3][2] = {{0, 0}, {1, 0}, {0, 0}}, dv[3][M] = {{0}};
    double dx[3] = {1, 0, 0.5};
    dv[2][4] = 1;
    double pts[3] = {0.3, -0.6, 0.9};
    for (int k = 0; k < 3; k++) {
        double x = pts[k];
        t3 t = __enzyme_fwddiff3((void *)model, enzyme_width, 3, x, dx[0], dx[1], dx[2], enzyme_dupv, sizeof dw[0], w, dw,
                                 enzyme_dupv, sizeof dv[0], v, dv);
        for (int l = 0; l < 3; l++) {
            double one = __enzyme_fwddiff((void *)model, x, dx[l], enzyme_dup, w, dw[l], enzyme_dup, v, dv[l]);
            check_close("lane = width 1", t.d[l], one, EXACT_RTOL, EXACT_ATOL);
        }
        /* the rules' own formulas, not the bodies: quantize's derivative is taken as 1 */
        double h = 1e-6, wp[2] = {1.5 + h, 0.5}, wm[2] = {1.5 - h, 0.5};
        check_close("d/dw0 vs FD", t.d[1], (model(x, wp, v) - model(x, wm, v)) / (2 * h), FD_RTOL, FD_ATOL);
        double smooth = x + quantize(x); /* straight-through part along x */
        double rest = (model(x + h, w, v) - (quantize(x + h) * (x + h)) - model(x - h, w, v) + quantize(x - h) * (x - h)) / (2 * h);
        check_close("d/dx vs FD with the straight-through rule", t.d[0], rest + smooth, FD_RTOL, FD_ATOL);
    }
    return zyg_report();
}
