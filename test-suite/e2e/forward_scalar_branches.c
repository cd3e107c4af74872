// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Forward mode on scalar chains and branches: a long chain of elementary operations, an
// if/else ladder on float comparisons, a ternary select (clang's `select` at -O2), a branch
// on an integer argument and a piecewise smooth function. Each tangent is checked against
// central differences along the same direction, at points away from the branches' kinks.
#include "zyg_check.h"

/* A long chain: every intermediate feeds the next. */
static double chain(double x, double y) {
    double a = x * y + 0.5;
    double b = a * a - y / (1.0 + x * x);
    double c = sin(b) + cos(a * 0.3);
    double d = exp(0.2 * c) * (a - b);
    double e = d / (2.0 + c * c);
    return e * x - sqrt(1.0 + e * e) + log(3.0 + sin(x * y));
}

/* Branches on floats: which formula applies depends on the input. */
static double ladder(double x, double y) {
    double r;
    if (x < -1.0)
        r = x * x * y;
    else if (x < 0.5)
        r = sin(x) * y + x;
    else if (x * y > 2.0)
        r = log(x * y) - y;
    else
        r = exp(-x) * y * y;
    r = r > 0 ? r * 1.5 : r - y;
    return r + (y > x ? y - x : x * 0.25);
}

/* Integer-selected formula and a loop-free polynomial (Horner) */
static double piecewise(double x, int kind, double c) {
    double p = ((0.3 * x - 1.2) * x + c) * x + 2.0;
    switch (kind) {
    case 0: return p * c;
    case 1: return p / (1.0 + c * c);
    default: return p * p + c * x;
    }
}

static double fd2(double (*f)(double, double), double x, double y, double dx, double dy) {
    double h = 1e-6;
    return (f(x + h * dx, y + h * dy) - f(x - h * dx, y - h * dy)) / (2 * h);
}

int main(void) {
    /* one point in each region of `ladder` (and none at a boundary) */
    double points[][2] = {{-1.7, 0.4}, {-0.3, 1.1}, {1.6, 2.2}, {0.9, 0.7}, {2.5, -0.6}};
    double dirs[][2] = {{1, 0}, {0, 1}, {0.6, -0.8}};
    for (int i = 0; i < 5; i++) {
        double x = points[i][0], y = points[i][1];
        for (int j = 0; j < 3; j++) {
            double dx = dirs[j][0], dy = dirs[j][1];
            double t = __enzyme_fwddiff((void *)chain, x, dx, y, dy);
            check_close("chain", t, fd2(chain, x, y, dx, dy), FD_RTOL, FD_ATOL);
            t = __enzyme_fwddiff((void *)ladder, x, dx, y, dy);
            check_close("ladder", t, fd2(ladder, x, y, dx, dy), FD_RTOL, FD_ATOL);
        }
        for (int kind = 0; kind < 3; kind++) {
            double h = 1e-6, dx = 0.4, dc = -1.3;
            double t = __enzyme_fwddiff((void *)piecewise, x, dx, enzyme_const, kind, y, dc);
            double want = (piecewise(x + h * dx, kind, y + h * dc) - piecewise(x - h * dx, kind, y - h * dc)) / (2 * h);
            check_close("piecewise", t, want, FD_RTOL, FD_ATOL);
            double tx = __enzyme_fwddiff((void *)piecewise, x, 1.0, enzyme_const, kind, enzyme_const, y);
            check_close("piecewise, c const", tx, FD3_0(piecewise, x, kind, y), FD_RTOL, FD_ATOL);
        }
    }
    return zyg_report();
}
