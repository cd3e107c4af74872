// REQUIRES: openmp
// RUN: %grad-run-omp -O0 %s %t -fopenmp | FileCheck %s
// RUN: %grad-run-omp -O2 %s %t -fopenmp | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// A region of two worksharing loops: the first writes y, the implicit barrier at its end
// (`__kmpc_barrier`) lets the second read neighbours another thread wrote. The adjoint
// replays the barrier, so every adjoint of the second loop reaches y's shadow before the
// first loop's adjoint takes it; a `nowait` loop and an explicit `#pragma omp barrier`
// are the same, spelled out.
#include <math.h>
#include "zyg_omp.h"

#define N 64

static double smooth(const double *x, double *y, double *z, int n) {
#pragma omp parallel
    {
#pragma omp for
        for (int i = 0; i < n; i++)
            y[i] = x[i] * x[i];
#pragma omp for
        for (int i = 0; i < n; i++)
            z[i] = y[(i + 7) % n] + y[(i + n - 3) % n] * y[i];
    }
    double s = 0;
    for (int i = 0; i < n; i++)
        s += sin(z[i]);
    return s;
}

static double explicit_barrier(const double *x, double *y, double *z, int n) {
#pragma omp parallel
    {
#pragma omp for nowait
        for (int i = 0; i < n; i++)
            y[i] = exp(0.3 * x[i]);
#pragma omp barrier
#pragma omp for nowait
        for (int i = 0; i < n; i++)
            z[i] = y[n - 1 - i] * x[i];
    }
    double s = 0;
    for (int i = 0; i < n; i++)
        s += z[i] * z[i];
    return s;
}

static double smooth_of(const double *x, void *ctx) {
    double y[N], z[N];
    return ctx ? explicit_barrier(x, y, z, N) : smooth(x, y, z, N);
}

int main(void) {
    double x[N], serial[2][N];
    for (int i = 0; i < N; i++)
        x[i] = 0.04 * i - 1.1;
    ZYG_FOR_TEAMS(t) {
        double dx[2][N] = {{0}}, y[N], dy[N] = {0}, z[N], dz[N] = {0};
        __enzyme_autodiff((void *)smooth, enzyme_dup, x, dx[0], enzyme_dup, y, dy, enzyme_dup, z, dz, enzyme_const, N);
        __enzyme_autodiff((void *)explicit_barrier, enzyme_dup, x, dx[1], enzyme_dup, y, dy, enzyme_dup, z, dz,
                          enzyme_const, N);
        check_array_fd("smooth", smooth_of, 0, x, N, dx[0]);
        check_array_fd("explicit barrier", smooth_of, &t, x, N, dx[1]);
        for (int m = 0; m < 2; m++) {
            if (t == 1)
                for (int i = 0; i < N; i++)
                    serial[m][i] = dx[m][i];
            check_same_as_serial("barrier, teams", dx[m], serial[m], N);
        }
    }
    return zyg_report();
}
