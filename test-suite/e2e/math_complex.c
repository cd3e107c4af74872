// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// C99 complex arithmetic: products and quotients (__muldc3, __divdc3 and their float
// twins), cexp, clog, cabs and carg, which zyg differentiates through its own models of
// the library functions.
#include <complex.h>
#include "zyg_check.h"

double f(double a, double b, double c) {
    double complex z = a + b * I, w = c - a * I;
    double complex p = z * w / (w + 2.0);
    double complex e = cexp(z / 3.0) * clog(w);
    return creal(p) * cimag(e) + cabs(p - e) + carg(w * z);
}

float g(float a, float b) {
    float complex z = a + b * I, w = b - 0.5f * I;
    float complex q = z * w / (z + 1.0f);
    return crealf(q) + cimagf(q) * a;
}

int main(void) {
    double pts[3][3] = {{0.5, 0.3, 1.2}, {-1.1, 0.7, 0.4}, {2.0, -0.4, -0.8}};
    for (int p = 0; p < 3; p++) {
        double a = pts[p][0], b = pts[p][1], c = pts[p][2];
        zyg_grad3 gr = __enzyme_autodiff3((void *)f, a, b, c);
        CHECK_FD3(f, a, b, c, gr);
        zyg_gradf2 gf = __enzyme_autodifff2((void *)g, (float)a, (float)b);
        CHECK_FDF2(g, a, b, gf);
    }
    return zyg_report();
}
