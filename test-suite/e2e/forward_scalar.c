// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// RUN: %grad-run -O3 %s %t.native -march=native | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Forward mode on scalar code (__enzyme_fwddiff): each float argument is followed by its
// tangent, `enzyme_const` ones by nothing; the result is the directional derivative,
// checked against central finite differences along the same direction, at several points.
#include "zyg_check.h"

static double f(double x, double y) {
    double a = sin(x) * y + exp(x * y) / (1.0 + y * y);
    double b = x > 0.5 ? sqrt(x * x + y * y) : cos(y) - x;
    return a * b + pow(fabs(y) + 1.0, x);
}

/* f along the direction (dx, dy), by central differences. */
static double fd(double x, double y, double dx, double dy) {
    double h = 1e-6;
    return (f(x + h * dx, y + h * dy) - f(x - h * dx, y - h * dy)) / (2 * h);
}

static double g(double x, double k) { return k * log(1.0 + x * x) + tanh(k * x); }

int main(void) {
    double points[][2] = {{0.3, 1.2}, {1.7, -0.4}, {-0.8, 0.6}, {0.9, 2.5}};
    double dirs[][2] = {{1, 0}, {0, 1}, {0.3, -0.7}};
    for (int i = 0; i < 4; i++) {
        double x = points[i][0], y = points[i][1];
        for (int j = 0; j < 3; j++) {
            double dx = dirs[j][0], dy = dirs[j][1];
            double t = __enzyme_fwddiff((void *)f, x, dx, y, dy);
            check_close("f along (dx, dy)", t, fd(x, y, dx, dy), FD_RTOL, FD_ATOL);
            double marked = __enzyme_fwddiff((void *)f, enzyme_dup, x, dx, enzyme_dup, y, dy);
            check_close("f with enzyme_dup markers", marked, t, EXACT_RTOL, EXACT_ATOL);
        }
        double k = y;
        double dg = __enzyme_fwddiff((void *)g, x, 1.0, enzyme_const, k);
        double want = 2 * k * x / (1 + x * x) + k * (1 - tanh(k * x) * tanh(k * x));
        check_close("g with k const", dg, want, EXACT_RTOL, EXACT_ATOL);
    }
    return zyg_report();
}
