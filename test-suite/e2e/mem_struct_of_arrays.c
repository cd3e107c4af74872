// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// A struct of arrays (positions, velocities and masses of particles as three fixed arrays
// in one struct) passed by dup pointer: the shadow is a struct of the same shape, and each
// field's gradient lands at its own offset.
#include "zyg_check.h"

enum { N = 5 };
typedef struct {
    double x[N];
    double v[N];
    double m[N];
    int n;
} particles;

double energy(const particles *p, double k) {
    double e = 0.0;
    for (int i = 0; i < p->n; i++)
        e += 0.5 * p->m[i] * p->v[i] * p->v[i];
    for (int i = 0; i + 1 < p->n; i++) {
        double d = p->x[i + 1] - p->x[i] - 1.0;
        e += 0.5 * k * d * d + 0.1 * p->m[i] * p->m[i + 1] / (1.0 + d * d);
    }
    return e;
}

static double energy_flat(const double *z) {
    particles p;
    for (int i = 0; i < N; i++) p.x[i] = z[i], p.v[i] = z[N + i], p.m[i] = z[2 * N + i];
    p.n = N;
    return energy(&p, z[3 * N]);
}

static double fd(double (*g)(const double *), const double *x, int n, int k) {
    double a[64], b[64], h = ZYG_STEP(x[k]);
    for (int i = 0; i < n; i++) a[i] = b[i] = x[i];
    a[k] += h;
    b[k] -= h;
    return (g(a) - g(b)) / (2 * h);
}

int main(void) {
    double pts[2][3 * N + 1] = {
        {0.0, 1.2, 1.9, 3.3, 4.1, 0.5, -0.3, 0.8, 0.1, -0.6, 1.0, 2.0, 0.5, 1.5, 0.8, 3.0},
        {0.3, 1.0, 2.4, 3.1, 4.6, -0.2, 0.7, 0.0, -0.9, 0.4, 0.6, 1.1, 2.5, 0.9, 1.3, 0.7}};
    for (int q = 0; q < 2; q++) {
        double *z = pts[q];
        particles p, dp = {{0}, {0}, {0}, 0};
        for (int i = 0; i < N; i++) p.x[i] = z[i], p.v[i] = z[N + i], p.m[i] = z[2 * N + i];
        p.n = N;
        double dk = __enzyme_autodiff((void *)energy, enzyme_dup, &p, &dp, z[3 * N]);
        for (int i = 0; i < N; i++) {
            check_close("dx", dp.x[i], fd(energy_flat, z, 3 * N + 1, i), FD_RTOL, FD_ATOL);
            check_close("dv", dp.v[i], fd(energy_flat, z, 3 * N + 1, N + i), FD_RTOL, FD_ATOL);
            check_close("dm", dp.m[i], fd(energy_flat, z, 3 * N + 1, 2 * N + i), FD_RTOL, FD_ATOL);
        }
        check_close("dk", dk, fd(energy_flat, z, 3 * N + 1, 3 * N), FD_RTOL, FD_ATOL);
    }
    return zyg_report();
}
