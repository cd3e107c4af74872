// REQUIRES: openmp
// RUN: %grad-run-omp -O0 %s %t -fopenmp | FileCheck %s
// RUN: %grad-run-omp -O2 %s %t -fopenmp | FileCheck %s
// Whatever method the runtime picks for the reduction, the gradient is the same.
// RUN: env KMP_FORCE_REDUCTION=critical %t.O2.exe | FileCheck %s
// RUN: env KMP_FORCE_REDUCTION=tree %t.O2.exe | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// `reduction(+: s)`: each thread sums into a private copy, and the copies are added into
// s at the end. zyg's prepared copy adds each thread's copy atomically (the runtime's own
// atomic method: zyg_ir::llvm::openmp_reductions_to_atomics), whose adjoint gives every
// thread's copy the adjoint of s. Also a reduction into two variables, one a float.
#include <math.h>
#include "zyg_omp.h"

#define N 41

static double dot_cube(const double *x, const double *w, int n) {
    double s = 0;
#pragma omp parallel for reduction(+ : s)
    for (int i = 0; i < n; i++)
        s += w[i] * x[i] * x[i] * x[i];
    return s;
}

static double two_sums(const double *x, int n) {
    double a = 0;
    float b = 0;
#pragma omp parallel for reduction(+ : a, b)
    for (int i = 0; i < n; i++) {
        a += exp(0.1 * x[i]);
        b += (float)(x[i] * x[i]);
    }
    return a * b;
}

static double w[N];
static double dot_cube_of(const double *x, void *ctx) {
    (void)ctx;
    return dot_cube(x, w, N);
}
static double two_sums_of(const double *x, void *ctx) {
    (void)ctx;
    return two_sums(x, N);
}

int main(void) {
    double x[N], serial[N], serial2[N];
    for (int i = 0; i < N; i++) {
        x[i] = 0.07 * i - 1.3;
        w[i] = cos(0.3 * i);
    }
    ZYG_FOR_TEAMS(t) {
        double dx[N] = {0};
        __enzyme_autodiff((void *)dot_cube, enzyme_dup, x, dx, enzyme_const, w, enzyme_const, N);
        for (int i = 0; i < N; i++)
            check_close("dot_cube, exact", dx[i], 3 * w[i] * x[i] * x[i], 1e-12, 1e-13);
        check_array_fd("dot_cube", dot_cube_of, 0, x, N, dx);
        if (t == 1)
            for (int i = 0; i < N; i++)
                serial[i] = dx[i];
        check_same_as_serial("dot_cube, teams", dx, serial, N);

        double dx2[N] = {0};
        __enzyme_autodiff((void *)two_sums, enzyme_dup, x, dx2, enzyme_const, N);
        double a = 0, b = 0;
        for (int i = 0; i < N; i++) {
            a += exp(0.1 * x[i]);
            b += (float)(x[i] * x[i]);
        }
        for (int i = 0; i < N; i++)
            check_close("two_sums, exact", dx2[i], 0.1 * exp(0.1 * x[i]) * b + a * 2 * x[i], 1e-5, 1e-5);
        if (t == 1)
            for (int i = 0; i < N; i++)
                serial2[i] = dx2[i];
        for (int i = 0; i < N; i++)
            check_close("two_sums, teams", dx2[i], serial2[i], 1e-5, 1e-6);
    }
    return zyg_report();
}
