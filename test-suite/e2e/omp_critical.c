// REQUIRES: openmp
// RUN: %grad-run-omp -O0 %s %t -fopenmp | FileCheck %s
// RUN: %grad-run-omp -O2 %s %t -fopenmp | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// `#pragma omp critical` sections that only add into shared variables (a scalar, an array
// element, a product (`fmuladd`), two of them in one section, a float): zyg's prepared copy makes them relaxed
// atomic additions (zyg_ir::llvm::openmp_critical_sums_to_atomics), which add the same
// values in some order, as the lock allowed, and whose adjoints commute. Sections that do
// anything else are refused (errors/openmp_refused.c).
#include <math.h>
#include "zyg_omp.h"

#define N 60
#define B 4

static double sums(const double *x, double *bins, int n) {
    double total = 0, squares = 0;
    float small = 0;
#pragma omp parallel
    {
        double mine = 0, mine2 = 0;
#pragma omp for
        for (int i = 0; i < n; i++) {
            double v = exp(0.1 * x[i]) * x[i], w = cos(x[i]);
            mine += v;
            mine2 += v * v;
#pragma omp critical(bins)
            bins[i % B] += v * w;
        }
#pragma omp critical
        {
            total += mine;
            squares += mine2;
        }
#pragma omp critical(small)
        small += (float)mine2;
    }
    double s = total * total + squares + 1e-3 * small;
    for (int b = 0; b < B; b++)
        s += bins[b] * bins[b] * (b + 1);
    return s;
}

static double sums_of(const double *x, void *ctx) {
    (void)ctx;
    double bins[B] = {0};
    return sums(x, bins, N);
}

int main(void) {
    double x[N], serial[N];
    for (int i = 0; i < N; i++)
        x[i] = 0.05 * i - 1.5;
    ZYG_FOR_TEAMS(t) {
        double dx[N] = {0}, bins[B] = {0}, dbins[B] = {0};
        __enzyme_autodiff((void *)sums, enzyme_dup, x, dx, enzyme_dup, bins, dbins, enzyme_const, N);
        // The float sum (weighted 1e-3) makes central differences coarser: a wider step.
        for (int k = 0; k < N; k += 7) {
            double moved[N];
            for (int j = 0; j < N; j++)
                moved[j] = x[j];
            double h = 1e-3;
            moved[k] = x[k] + h;
            double up = sums_of(moved, 0);
            moved[k] = x[k] - h;
            double down = sums_of(moved, 0);
            check_close("sums", dx[k], (up - down) / (2 * h), 1e-5, 1e-5);
        }
        if (t == 1)
            for (int i = 0; i < N; i++)
                serial[i] = dx[i];
        for (int i = 0; i < N; i++)
            check_close("sums, teams", dx[i], serial[i], 1e-6, 1e-6);
    }
    return zyg_report();
}
