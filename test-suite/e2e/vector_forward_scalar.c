// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Vector forward mode (`enzyme_width, N`) on scalar code: N tangents in one sweep, each
// float argument followed by N tangents, the result a struct of N tangents. Branches,
// loops (tangent phis per lane), libm, a noinline callee (called with all lanes at
// once), recursion. Each lane is checked against width-1 forward mode (exactly) and
// against central differences along the lane's direction.
#include "zyg_check.h"

extern int enzyme_width;
typedef struct { double d[2]; } t2;
typedef struct { double d[3]; } t3;
typedef struct { double d[4]; } t4;
t2 __enzyme_fwddiff2(void *, ...) __asm__("__enzyme_fwddiff");
t3 __enzyme_fwddiff3(void *, ...) __asm__("__enzyme_fwddiff");
t4 __enzyme_fwddiff4(void *, ...) __asm__("__enzyme_fwddiff");

__attribute__((noinline)) static double helper(double a, double b) {
    double s = 0;
    for (int k = 1; k <= 5; k++) s += sin(a * k) / k + b * b / (k + a * a);
    return s;
}

static double rec(double x, int n) { return n == 0 ? x : rec(x * cos(x) + 0.1 * x * x, n - 1); }

static double f(double x, double y, double z) {
    double acc = 0;
    for (int i = 0; i < 7; i++) {
        if (acc > 1.0)
            acc = acc * 0.5 + x * y;
        else
            acc += exp(-z * i) * x + y * y;
    }
    return acc + helper(x, z) + rec(y * 0.3, 4) + (x > y ? pow(x, 2.5) : log1p(y * y));
}

static double g(double x, double y) { return atan2(y, x) * hypot(x, y) + fmax(x, 0.3 * y) * fmin(x, y); }

static void check_f(double x, double y, double z) {
    double dirs[4][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {0.3, -0.7, 1.1}};
    t4 t = __enzyme_fwddiff4((void *)f, enzyme_width, 4, x, dirs[0][0], dirs[1][0], dirs[2][0], dirs[3][0], y, dirs[0][1],
                             dirs[1][1], dirs[2][1], dirs[3][1], z, dirs[0][2], dirs[1][2], dirs[2][2], dirs[3][2]);
    for (int l = 0; l < 4; l++) {
        double one = __enzyme_fwddiff((void *)f, x, dirs[l][0], y, dirs[l][1], z, dirs[l][2]);
        double h = 1e-6;
        double fd = (f(x + h * dirs[l][0], y + h * dirs[l][1], z + h * dirs[l][2]) -
                     f(x - h * dirs[l][0], y - h * dirs[l][1], z - h * dirs[l][2])) / (2 * h);
        check_close("f lane = width 1", t.d[l], one, EXACT_RTOL, EXACT_ATOL);
        check_close("f lane vs FD", t.d[l], fd, FD_RTOL, FD_ATOL);
    }
}

static void check_g(double x, double y) {
    t2 t = __enzyme_fwddiff2((void *)g, enzyme_width, 2, x, 1.0, 0.0, y, 0.0, 1.0);
    check_close("dg/dx", t.d[0], FD2_0(g, x, y), FD_RTOL, FD_ATOL);
    check_close("dg/dy", t.d[1], FD2_1(g, x, y), FD_RTOL, FD_ATOL);
    /* a constant argument between active ones, width 3 */
    t3 u = __enzyme_fwddiff3((void *)f, enzyme_width, 3, x, 1.0, 0.0, 2.0, enzyme_const, y, 0.5, 0.0, 1.0, -1.0);
    check_close("f(x, const y, z) lane 0", u.d[0], __enzyme_fwddiff((void *)f, x, 1.0, enzyme_const, y, 0.5, 0.0), EXACT_RTOL, EXACT_ATOL);
    check_close("f(x, const y, z) lane 1", u.d[1], __enzyme_fwddiff((void *)f, x, 0.0, enzyme_const, y, 0.5, 1.0), EXACT_RTOL, EXACT_ATOL);
    check_close("f(x, const y, z) lane 2", u.d[2], __enzyme_fwddiff((void *)f, x, 2.0, enzyme_const, y, 0.5, -1.0), EXACT_RTOL, EXACT_ATOL);
}

int main(void) {
    double pts[3][3] = {{0.4, 0.9, 0.2}, {1.7, 0.3, 0.05}, {0.8, 1.2, 0.6}};
    for (int p = 0; p < 3; p++) {
        check_f(pts[p][0], pts[p][1], pts[p][2]);
        check_g(pts[p][0], pts[p][1]);
    }
    return zyg_report();
}
