// REQUIRES: blas
// RUN: %grad-run-blas -O0 %s %t | FileCheck %s
// RUN: %grad-run-blas -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// LAPACKE_dpotrf and LAPACKE_dpotrs through zyg's LAPACK rules: the log-determinant of a
// symmetric positive definite matrix from its Cholesky factor, and a linear solve with
// two right-hand sides through the factor, in all four layouts and triangles (column-
// major lower and upper, row-major lower and upper, one with a padded leading
// dimension). The matrix S = M^T M + 3I is built from the parameters with cblas_dgemm.
// Reverse mode against central differences in each parameter, forward mode along a
// direction, three points.
#include <cblas.h>
#include <lapacke.h>
#define NP 15
#include "zyg_blas_check.h"

/* S into a (n x n, leading dimension ld; the layouts agree: S is symmetric) */
static void spd(const double *M, double *a, int ld) {
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < ld; i++)
            a[i + ld * j] = i == j ? 3.0 : 0.0;
    cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, 3, 3, 3, 1.0, M, 3, M, 3, 1.0, a, ld);
}

/* p: M[0..9), b[9..15) (3 x 2) */
static double f(const double *p) {
    const int layouts[4] = {LAPACK_COL_MAJOR, LAPACK_COL_MAJOR, LAPACK_ROW_MAJOR, LAPACK_ROW_MAJOR};
    const char uplos[4] = {'L', 'U', 'L', 'U'};
    const int lds[4] = {3, 4, 3, 3};
    double s = 0;
    for (int v = 0; v < 4; v++) {
        double a[12], b[8];
        int ld = lds[v], row = layouts[v] == LAPACK_ROW_MAJOR;
        spd(p, a, ld);
        if (LAPACKE_dpotrf(layouts[v], uplos[v], 3, a, ld) != 0)
            return 0.0 / 0.0;
        double logdet = 0;
        for (int i = 0; i < 3; i++)
            logdet += 2 * log(a[i + ld * i]);
        /* b: 3 x 2, ldb 2 in row-major, 4 in column-major */
        int ldb = row ? 2 : 4;
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 2; j++)
                b[row ? i * ldb + j : i + ldb * j] = p[9 + 2 * i + j];
        LAPACKE_dpotrs(layouts[v], uplos[v], 3, 2, a, ld, b, ldb);
        double fit = 0;
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 2; j++)
                fit += (1 + i + 0.5 * j) * b[row ? i * ldb + j : i + ldb * j];
        s += (1 + 0.3 * v) * logdet + fit * fit;
    }
    return s;
}

int main(void) {
    double p1[NP], p2[NP], p3[NP];
    fill_points(p1, p2, p3, 0.05);
    check_points(p1, p2, p3);
    return zyg_report();
}
