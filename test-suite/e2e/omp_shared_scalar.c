// REQUIRES: openmp
// RUN: %grad-run-omp -O0 %s %t -fopenmp | FileCheck %s
// RUN: %grad-run-omp -O2 %s %t -fopenmp | FileCheck %s
// RUN: %zyg grad -O 0 %t.O2.ll -S -o - | FileCheck --check-prefix=PRIVATE %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// A scalar with a derivative, shared by reference and read by every iteration (a
// coefficient): each thread adds its adjoints into an accumulator of its own, added into
// the scalar's shadow once per thread (rules/openmp.rs, `privatised`; the region's spec
// names the parameter: `p_4`). Not where its address is taken elsewhere (`b`, through a
// pointer the region reads too), nor where the region writes it (`c`, by one thread).
// PRIVATE: define internal void @coefficients.omp_outlined.zyg.primal.{{[cd]+}}p_{{[0-9]+}}(
#include <math.h>
#include "zyg_omp.h"

#define N 45

static double coefficients(const double *x, double *y, double a, double b, int n) {
    double c = 0.5, *pb = &b;
#pragma omp parallel
    {
#pragma omp for
        for (int i = 0; i < n; i++)
            y[i] = a * x[i] * x[i] + *pb * sin(x[i]) + b * c;
#pragma omp single
        c = a * b;
#pragma omp for
        for (int i = 0; i < n; i++)
            y[i] += c * x[i];
    }
    double s = 0;
    for (int i = 0; i < n; i++)
        s += y[i] * y[i];
    return s;
}

static double ab[2];
static double by_x(const double *x, void *ctx) {
    (void)ctx;
    double y[N];
    return coefficients(x, y, ab[0], ab[1], N);
}
static double by_ab(const double *p, void *ctx) {
    double y[N];
    return coefficients((const double *)ctx, y, p[0], p[1], N);
}

int main(void) {
    double x[N], serial[N + 2];
    for (int i = 0; i < N; i++)
        x[i] = 0.06 * i - 1.4;
    ab[0] = 0.7;
    ab[1] = -1.3;
    ZYG_FOR_TEAMS(t) {
        double dx[N] = {0}, y[N], dy[N] = {0};
        zyg_grad2 g = __enzyme_autodiff2((void *)coefficients, enzyme_dup, x, dx, enzyme_dup, y, dy, ab[0], ab[1],
                                         enzyme_const, N);
        check_array_fd("coefficients, x", by_x, 0, x, N, dx);
        double dab[2] = {g.d0, g.d1};
        check_array_fd("coefficients, a and b", by_ab, x, ab, 2, dab);
        if (t == 1) {
            for (int i = 0; i < N; i++)
                serial[i] = dx[i];
            serial[N] = g.d0;
            serial[N + 1] = g.d1;
        }
        check_same_as_serial("coefficients, teams", dx, serial, N);
        check_same_as_serial("coefficients, teams, a and b", dab, serial + N, 2);
    }
    return zyg_report();
}
