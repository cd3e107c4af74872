// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Structs passed and returned by value between helpers: a 3-double struct goes `byval`
// (in memory) and comes back through `sret`, a 2-double struct in registers; a helper
// that changes its byval copy must not change the caller's struct.
#include "zyg_check.h"

typedef struct { double x, y, z; } vec3;
typedef struct { double re, im; } cplx;

__attribute__((noinline)) vec3 cross(vec3 a, vec3 b) {
    vec3 c = {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
    return c;
}
__attribute__((noinline)) double norm2_scaled(vec3 v, double s) {
    v.x *= s;  // writes the byval copy only
    return v.x * v.x + v.y * v.y + v.z * v.z;
}
__attribute__((noinline)) cplx cmul(cplx a, cplx b) { return (cplx){a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re}; }

double f(const double *p) {
    vec3 a = {p[0], p[1], p[2]}, b = {p[3], sin(p[4]), p[5]};
    vec3 c = cross(a, b);
    double n = norm2_scaled(c, p[6]);
    n += c.x * 0.5;  // c itself is unchanged by norm2_scaled
    cplx z = {p[0], p[6]}, w = cmul(z, z);
    w = cmul(w, (cplx){p[1], p[2]});
    return n + w.re * w.im;
}

static double fd(const double *p, int k) {
    double a[7], b[7], h = 1e-6;
    for (int i = 0; i < 7; i++) a[i] = b[i] = p[i];
    a[k] += h;
    b[k] -= h;
    return (f(a) - f(b)) / (2 * h);
}

int main(void) {
    double pts[2][7] = {{0.3, -0.8, 1.4, 0.2, -1.1, 0.6, 0.9}, {1.0, 0.5, -0.25, 0.7, -0.7, 0.1, -0.3}};
    for (int p = 0; p < 2; p++) {
        double dp[7] = {0};
        __enzyme_autodiff((void *)f, enzyme_dup, pts[p], dp);
        for (int k = 0; k < 7; k++)
            check_close("df/dp", dp[k], fd(pts[p], k), FD_RTOL, FD_ATOL);
    }
    return zyg_report();
}
