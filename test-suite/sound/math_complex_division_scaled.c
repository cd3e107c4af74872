// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// RUN: %grad-run -O3 %s %t.native -march=native | FileCheck %s
// Complex quotients whose divisor is huge or tiny (1e200 and 1e-200 in double, 1e20 and
// 1e-20 in float, and both orders of its parts' sizes). zyg's model of __divdc3/__divsc3
// once divided by c*c + d*d, which overflows or underflows there: the derivative came out
// 0 or NaN with exit status 0, and the primal inside the gradient was wrong as well (a
// branch on the quotient went the other way). The model divides as Smith's algorithm
// does now. Checked against the exact derivative of Re and Im of a/b and against
// finite differences, at several points.
// CHECK-NOT: FAIL
// CHECK: ALL OK
#include <complex.h>
#include "zyg_check.h"

// q = a/b with a = x0 + i x1, b = (x2 + i x3) * scale: scale cancels in the derivative's form.
double quot_d(const double *x, double scale) {
    double complex a = x[0] + I * x[1], b = (x[2] + I * x[3]) * scale;
    double complex q = (a * scale) / b;
    double y = creal(q) + 2 * cimag(q);
    return y > 0 ? y : 3 * y; // a branch on the quotient: the primal must be right too
}

float quot_f(const float *x, float scale) {
    float complex a = x[0] + I * x[1], b = (x[2] + I * x[3]) * scale;
    float complex q = (a * scale) / b;
    return crealf(q) - cimagf(q);
}

static double scale_d;
static double fd_d(const double *x, void *u) { (void)u; return quot_d(x, scale_d); }

// d(a/b)/da = 1/b, d(a/b)/db = -a/b^2 (unscaled: a = x0 + i x1, b = x2 + i x3).
static void exact(const double *x, double wre, double wim, double *g) {
    double complex a = x[0] + I * x[1], b = x[2] + I * x[3];
    double complex da = 1 / b, db = -a / (b * b);
    // y = wre*Re(q) + wim*Im(q); dy/dx0 = Re(w* . da) with w = wre - i wim ...
    g[0] = wre * creal(da) + wim * cimag(da);
    g[1] = wre * creal(I * da) + wim * cimag(I * da);
    g[2] = wre * creal(db) + wim * cimag(db);
    g[3] = wre * creal(I * db) + wim * cimag(I * db);
}

int main(void) {
    double pts[3][4] = {{0.5, -1.25, 2.0, 0.75}, {1.0, 0.3, -0.8, 1.4}, {-0.7, 0.9, 0.2, -3.0}};
    double scales[] = {1.0, 1e200, 1e-200};
    for (int s = 0; s < 3; s++) {
        for (int k = 0; k < 3; k++) {
            double *x = pts[k], dx[4] = {0}, g[4];
            scale_d = scales[s];
            __enzyme_autodiff((void *)quot_d, enzyme_dup, x, dx, enzyme_const, scales[s]);
            double complex q = (x[0] + I * x[1]) / (x[2] + I * x[3]);
            double w = creal(q) + 2 * cimag(q) > 0 ? 1 : 3;
            exact(x, w, 2 * w, g);
            for (int i = 0; i < 4; i++) check_close("double exact", dx[i], g[i], 1e-10, 1e-12);
            check_array_fd("double fd", fd_d, NULL, x, 4, dx);
        }
    }
    float scales_f[] = {1.0f, 1e20f, 1e-20f};
    for (int s = 0; s < 3; s++) {
        for (int k = 0; k < 3; k++) {
            float x[4], dx[4] = {0};
            double xd[4], g[4];
            for (int i = 0; i < 4; i++) xd[i] = x[i] = (float)pts[k][i];
            __enzyme_autodiff((void *)quot_f, enzyme_dup, x, dx, enzyme_const, scales_f[s]);
            exact(xd, 1, -1, g);
            for (int i = 0; i < 4; i++) check_close("float exact", dx[i], g[i], 1e-4, 1e-5);
        }
    }
    return zyg_report();
}
