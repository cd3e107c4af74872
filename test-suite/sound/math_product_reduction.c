// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// RUN: %grad-run -O3 %s %t.fast -march=native -ffast-math | FileCheck %s
// RUN: grep -q "llvm.vector.reduce.fmul" %t.fast.O3.ll
// CHECK-NOT: FAIL
// CHECK: ALL OK
// A product over an array, which -ffast-math vectorises into llvm.vector.reduce.fmul
// (once refused: no rule). Each factor's derivative is the product of the others, exact
// where other factors are zero (one zero: only its own derivative is non-zero; two: all 0).
#include "zyg_check.h"

double prod(const double *x, int n) {
    double p = 1.0;
    for (int i = 0; i < n; i++)
        p *= x[i];
    return p;
}

static double prod_of(const double *x, void *ctx) { return prod(x, *(int *)ctx); }

int main(void) {
    enum { N = 23 };
    for (int zeros = 0; zeros < 3; zeros++) {
        double x[N], dx[N] = {0};
        for (int i = 0; i < N; i++)
            x[i] = 0.9 + 0.01 * (i % 7) - (i % 2 ? 1.85 : 0.0);
        if (zeros > 0)
            x[5] = 0.0;
        if (zeros > 1)
            x[17] = 0.0;
        int n = N;
        __enzyme_autodiff((void *)prod, enzyme_dup, x, dx, enzyme_const, n);
        for (int i = 0; i < N; i++) {
            double others = 1.0;
            for (int j = 0; j < N; j++)
                if (j != i)
                    others *= x[j];
            check_close("d prod / dx", dx[i], others, 1e-12, 1e-300);
        }
        check_array_fd("d prod / dx (fd)", prod_of, &n, x, N, dx);
    }
    return zyg_report();
}
