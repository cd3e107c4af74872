// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// RUN: %grad-run -O3 %s %t.o3 %march-v3 | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Sparse matrix in CSR form (const int row_ptr/col_idx, dup values): y = A x by indirect
// gathers x[col_idx[k]], then x^T A^T A x style loss and a transposed product scattered
// back with A^T y (indirect scatter-adds into a local array).
#include "zyg_check.h"

enum { R = 5, NNZ = 12 };
static const int row_ptr[R + 1] = {0, 2, 5, 7, 10, 12};
static const int col_idx[NNZ] = {0, 3, 1, 2, 4, 0, 2, 1, 3, 4, 0, 4};

double csr_loss(const double *val, const int *rp, const int *ci, const double *x) {
    double y[R], z[R] = {0};
    for (int i = 0; i < R; i++) {
        double s = 0.0;
        for (int k = rp[i]; k < rp[i + 1]; k++)
            s += val[k] * x[ci[k]];
        y[i] = tanh(s);
    }
    for (int i = 0; i < R; i++) /* z = A^T y */
        for (int k = rp[i]; k < rp[i + 1]; k++)
            z[ci[k]] += val[k] * y[i];
    double l = 0.0;
    for (int i = 0; i < R; i++)
        l += y[i] * y[i] + z[i] * x[i];
    return l;
}

/* p = (val[NNZ], x[R]) */
static double flat(const double *p) {
    double v[NNZ], x[R];
    for (int i = 0; i < NNZ; i++) v[i] = p[i];
    for (int i = 0; i < R; i++) x[i] = p[NNZ + i];
    return csr_loss(v, row_ptr, col_idx, x);
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
        double p[NNZ + R], v[NNZ], x[R], dv[NNZ] = {0}, dx[R] = {0};
        for (int i = 0; i < NNZ + R; i++) p[i] = 0.9 * sin(1.21 * i + 0.4 + q);
        for (int i = 0; i < NNZ; i++) v[i] = p[i];
        for (int i = 0; i < R; i++) x[i] = p[NNZ + i];
        __enzyme_autodiff((void *)csr_loss, enzyme_dup, v, dv, enzyme_const, row_ptr, enzyme_const, col_idx, enzyme_dup, x,
                          dx);
        for (int k = 0; k < NNZ; k++) check_close("dval", dv[k], fd(flat, p, NNZ + R, k), FD_RTOL, FD_ATOL);
        for (int k = 0; k < R; k++) check_close("dx", dx[k], fd(flat, p, NNZ + R, NNZ + k), FD_RTOL, FD_ATOL);
    }
    return zyg_report();
}
