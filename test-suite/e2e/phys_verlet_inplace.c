// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Velocity Verlet for a chain of particles with anharmonic springs, integrated in place in
// the caller's dup position and velocity arrays (forces into a stack scratch array
// recomputed every step): the final total energy w.r.t. the initial state and stiffness.
#include "zyg_check.h"

enum { N = 5 };

static void forces(const double *x, double *f, double k) {
    for (int i = 0; i < N; i++)
        f[i] = -0.2 * x[i];
    for (int i = 0; i + 1 < N; i++) {
        double d = x[i + 1] - x[i] - 1.0;
        double t = k * d + 0.5 * d * d * d;
        f[i] += t;
        f[i + 1] -= t;
    }
}

double verlet(double *x, double *v, double k, int steps) {
    double f[N], dt = 0.05;
    forces(x, f, k);
    for (int s = 0; s < steps; s++) {
        for (int i = 0; i < N; i++) {
            v[i] += 0.5 * dt * f[i];
            x[i] += dt * v[i];
        }
        forces(x, f, k);
        for (int i = 0; i < N; i++)
            v[i] += 0.5 * dt * f[i];
    }
    double e = 0.0;
    for (int i = 0; i < N; i++)
        e += 0.5 * v[i] * v[i] + 0.1 * x[i] * x[i] + x[i] * v[i];
    return e;
}

/* z = (x[N], v[N], k), copied */
static double verlet_flat(const double *z) {
    double x[N], v[N];
    for (int i = 0; i < N; i++) x[i] = z[i], v[i] = z[N + i];
    return verlet(x, v, z[2 * N], 12);
}

static double fd(double (*g)(const double *), const double *x, int n, int k) {
    double a[64], b[64], h = ZYG_STEP(x[k]);
    for (int i = 0; i < n; i++) a[i] = b[i] = x[i];
    a[k] += h;
    b[k] -= h;
    return (g(a) - g(b)) / (2 * h);
}

int main(void) {
    for (int q = 0; q < 2; q++) {
        double z[2 * N + 1];
        for (int i = 0; i < N; i++) z[i] = i + 0.2 * sin(1.7 * i + q), z[N + i] = 0.3 * cos(2.3 * i - q);
        z[2 * N] = 1.5 + 0.5 * q;
        double x[N], v[N], dx[N] = {0}, dv[N] = {0};
        for (int i = 0; i < N; i++) x[i] = z[i], v[i] = z[N + i];
        double dk = __enzyme_autodiff((void *)verlet, enzyme_dup, x, dx, enzyme_dup, v, dv, z[2 * N], enzyme_const, 12);
        for (int k = 0; k < N; k++) {
            check_close("dx0", dx[k], fd(verlet_flat, z, 2 * N + 1, k), FD_RTOL, FD_ATOL);
            check_close("dv0", dv[k], fd(verlet_flat, z, 2 * N + 1, N + k), FD_RTOL, FD_ATOL);
        }
        check_close("dk", dk, fd(verlet_flat, z, 2 * N + 1, 2 * N), FD_RTOL, FD_ATOL);
    }
    return zyg_report();
}
