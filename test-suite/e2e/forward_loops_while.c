// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Forward mode through loops: nested loops whose inner trip count depends on the outer
// index, a while loop left by a float test on the iterate (Newton's method for a cube root
// stopped by the size of the step), a do-while with a counter and a float exit, and a
// triangular double sum. Tangents against central differences along the same direction,
// at points where the trip counts do not change within the step.
#include "zyg_check.h"

/* sum_{i<n} sum_{j<=i} x^i y^j / (1 + i + j) */
static double triangle(double x, double y, int n) {
    double s = 0, xi = 1;
    for (int i = 0; i < n; i++) {
        double yj = 1;
        for (int j = 0; j <= i; j++) {
            s += xi * yj / (1.0 + i + j);
            yj *= y;
        }
        xi *= x;
    }
    return s;
}

/* cube root of a by Newton's method from a guess that depends on b; stops when the step is
 * small, so the trip count depends on the inputs (the result does not, to rounding). */
static double newton_cbrt(double a, double b) {
    double r = 1.0 + 0.1 * b * b;
    double step = 1.0;
    int it = 0;
    while (fabs(step) > 1e-14 * fabs(r) && it < 100) {
        step = (r * r * r - a) / (3 * r * r);
        r -= step;
        it++;
    }
    return r * b;
}

/* Decay until below a threshold: the exit depends on x; the number of halvings is constant
 * within the FD step at the chosen points. */
static double decay(double x, double k) {
    double v = x * x + 1.0, acc = 0;
    int n = 0;
    do {
        acc += v * sin(k * n);
        v *= 0.6 + 0.1 * cos(k);
        n++;
    } while (v > 0.05 && n < 200);
    return acc + v;
}

/* A running-product recurrence with an early break on a value test. */
static double recurrence(double x, double y) {
    double u = x, w = y, s = 0;
    for (int i = 0; i < 40; i++) {
        double un = 0.5 * u + 0.3 * sin(w);
        double wn = 0.4 * w - 0.2 * u * u;
        u = un;
        w = wn;
        s += u * w;
        if (fabs(u) + fabs(w) < 1e-3) break;
    }
    return s + u;
}

#define FDDIR(f, x, y, dx, dy) (((f)((x) + h * (dx), (y) + h * (dy)) - (f)((x) - h * (dx), (y) - h * (dy))) / (2 * h))

int main(void) {
    double points[][2] = {{0.7, 0.4}, {1.3, -0.8}, {2.9, 1.6}};
    double dirs[][2] = {{1, 0}, {0, 1}, {-0.5, 0.9}};
    double h = 1e-6;
    for (int i = 0; i < 3; i++) {
        double x = points[i][0], y = points[i][1];
        for (int j = 0; j < 3; j++) {
            double dx = dirs[j][0], dy = dirs[j][1];
            for (int n = 3; n <= 7; n += 4) {
                double t = __enzyme_fwddiff((void *)triangle, x, dx, y, dy, enzyme_const, n);
                double want = (triangle(x + h * dx, y + h * dy, n) - triangle(x - h * dx, y - h * dy, n)) / (2 * h);
                check_close("triangle", t, want, FD_RTOL, FD_ATOL);
            }
            double t = __enzyme_fwddiff((void *)newton_cbrt, x, dx, y, dy);
            check_close("newton_cbrt", t, FDDIR(newton_cbrt, x, y, dx, dy), FD_RTOL, FD_ATOL);
            /* exact: d(b cbrt(a)) = b/(3 a^(2/3)) da + cbrt(a) db */
            check_close("newton_cbrt exact", t, y / (3 * cbrt(x * x)) * dx + cbrt(x) * dy, 1e-9, 1e-12);
            t = __enzyme_fwddiff((void *)decay, x, dx, y, dy);
            check_close("decay", t, FDDIR(decay, x, y, dx, dy), FD_RTOL, FD_ATOL);
            t = __enzyme_fwddiff((void *)recurrence, x, dx, y, dy);
            check_close("recurrence", t, FDDIR(recurrence, x, y, dx, dy), FD_RTOL, FD_ATOL);
        }
    }
    return zyg_report();
}
