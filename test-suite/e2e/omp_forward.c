// REQUIRES: openmp
// RUN: %grad-run-omp -O0 %s %t -fopenmp | FileCheck %s
// RUN: %grad-run-omp -O2 %s %t -fopenmp | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Forward mode (`__enzyme_fwddiff`) through OpenMP regions: the region's tangent function
// is forked the way the region was, each thread writing its tangents where it writes its
// values; a reduction's and an atomic's tangents are added atomically. Checked against
// central differences along a direction, and against reverse mode's gradient dotted with
// it, at 1, 2 and 4 threads.
#include <math.h>
#include "zyg_omp.h"

extern double __enzyme_fwddiff(void *, ...);

#define N 50

static double model(const double *x, double *y, double a, int n) {
    double s = 0, t = 0;
#pragma omp parallel
    {
#pragma omp for reduction(+ : s)
        for (int i = 0; i < n; i++) {
            y[i] = a * sin(x[i]) * x[i];
            s += y[i] * y[i];
        }
#pragma omp for
        for (int i = 0; i < n; i++) {
            double v = y[(i + 1) % n] * x[i];
#pragma omp atomic
            t += v;
        }
    }
    return s + t * t;
}

static double along(const double *x, const double *dir, double a, double da, double h) {
    double moved[N], y[N];
    for (int i = 0; i < N; i++)
        moved[i] = x[i] + h * dir[i];
    return model(moved, y, a + h * da, N);
}

int main(void) {
    double x[N], dir[N], y[N], dy[N];
    double a = 0.8, da = -0.3;
    for (int i = 0; i < N; i++) {
        x[i] = 0.07 * i - 1.6;
        dir[i] = cos(1.3 * i);
    }
    double serial = 0;
    ZYG_FOR_TEAMS(t) {
        for (int i = 0; i < N; i++)
            dy[i] = 0;
        double tangent = __enzyme_fwddiff((void *)model, enzyme_dup, x, dir, enzyme_dup, y, dy, a, da, enzyme_const, N);
        double h = 1e-6;
        double fd = (along(x, dir, a, da, h) - along(x, dir, a, da, -h)) / (2 * h);
        check_close("model, tangent", tangent, fd, 1e-6, 1e-7);
        double dx[N] = {0}, dy2[N] = {0};
        double grad_a = __enzyme_autodiff((void *)model, enzyme_dup, x, dx, enzyme_dup, y, dy2, a, enzyme_const, N);
        double dot = grad_a * da;
        for (int i = 0; i < N; i++)
            dot += dx[i] * dir[i];
        check_close("model, tangent against the gradient", tangent, dot, 1e-10, 1e-12);
        // dy holds the tangent of y.
        for (int i = 0; i < N; i++)
            check_close("model, tangent of y", dy[i],
                        da * sin(x[i]) * x[i] + a * (cos(x[i]) * x[i] + sin(x[i])) * dir[i], 1e-12, 1e-13);
        if (t == 1)
            serial = tangent;
        check_close("model, teams", tangent, serial, 1e-11, 1e-13);
    }
    return zyg_report();
}
