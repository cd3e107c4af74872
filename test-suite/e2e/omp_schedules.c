// REQUIRES: openmp
// RUN: %grad-run-omp -O0 %s %t -fopenmp | FileCheck %s
// RUN: %grad-run-omp -O2 %s %t -fopenmp | FileCheck %s
// RUN: env OMP_DYNAMIC=true %t.O2.exe | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Loop schedules: static with chunks (a loop over each thread's chunks), dynamic and guided
// (`__kmpc_dispatch_next_4` hands out chunks as threads ask). Each thread's tape records
// the chunks it got, so the adjoint replays them whichever thread replays the tape.
#include <math.h>
#include "zyg_omp.h"

#define N 53

static double staticchunk(const double *x, double *y, int n) {
#pragma omp parallel for schedule(static, 4)
    for (int i = 0; i < n; i++)
        y[i] = x[i] * x[i] * (1 + i % 3);
    double s = 0;
    for (int i = 0; i < n; i++)
        s += y[i] * x[i];
    return s;
}

static double dynamic(const double *x, double *y, int n) {
#pragma omp parallel for schedule(dynamic, 3)
    for (int i = 0; i < n; i++)
        y[i] = exp(0.2 * x[i]) * x[i];
    double s = 0;
    for (int i = 0; i < n; i++)
        s += y[i] * y[i];
    return s;
}

static double guided(const double *x, double *y, int n) {
#pragma omp parallel for schedule(guided)
    for (int i = 0; i < n; i++)
        y[i] = log(2 + x[i] * x[i]);
    double s = 0;
    for (int i = 0; i < n; i++)
        s += y[i] * (i + 1);
    return s;
}

typedef double (*model_t)(const double *, double *, int);
static double run(const double *x, void *ctx) {
    double y[N];
    return (*(model_t *)ctx)(x, y, N);
}

int main(void) {
    model_t models[] = {staticchunk, dynamic, guided};
    const char *names[] = {"static,4", "dynamic,3", "guided"};
    double x[N], y[N], serial[3][N];
    for (int i = 0; i < N; i++)
        x[i] = 0.05 * i - 1.1;
    ZYG_FOR_TEAMS(t) {
        double dx[3][N] = {{0}}, dy[N] = {0};
        __enzyme_autodiff((void *)staticchunk, enzyme_dup, x, dx[0], enzyme_dup, y, dy, enzyme_const, N);
        __enzyme_autodiff((void *)dynamic, enzyme_dup, x, dx[1], enzyme_dup, y, dy, enzyme_const, N);
        __enzyme_autodiff((void *)guided, enzyme_dup, x, dx[2], enzyme_dup, y, dy, enzyme_const, N);
        for (int m = 0; m < 3; m++) {
            check_array_fd(names[m], run, &models[m], x, N, dx[m]);
            if (t == 1)
                for (int i = 0; i < N; i++)
                    serial[m][i] = dx[m][i];
            check_same_as_serial(names[m], dx[m], serial[m], N);
        }
    }
    return zyg_report();
}
