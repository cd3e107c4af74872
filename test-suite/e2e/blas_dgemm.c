// REQUIRES: blas
// RUN: %grad-run-blas -O0 %s %t | FileCheck %s
// RUN: %grad-run-blas -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// cblas_dgemm through zyg's BLAS rules: non-square matrices, column- and row-major, all
// four transpose combinations, leading dimensions past the matrix, alpha and beta active
// (beta 0 and not), C overwritten and read again. Reverse mode against central
// differences in each parameter, forward mode along a direction, three points.
#include <cblas.h>
#include <stdlib.h>
#define NP 28
#include "zyg_blas_check.h"

/* p: A[0..6), B[6..18), C[18..26), alpha, beta */
static double f(const double *p) {
    const double *A = p, *B = p + 6, *C = p + 18;
    double alpha = p[26], beta = p[27];
    double C1[8], D[8], E[12], *F = calloc(12, sizeof(double));
    for (int k = 0; k < 8; k++)
        C1[k] = C[k];
    for (int k = 0; k < 12; k++)
        E[k] = 0.3 * C[k % 8];
    /* C1 = alpha A B + beta C1: A 2 x 3, B 3 x 4, column-major */
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, 2, 4, 3, alpha, A, 2, B, 3, beta, C1, 2);
    /* D = B^T A^T (4 x 2), column-major */
    cblas_dgemm(CblasColMajor, CblasTrans, CblasTrans, 4, 2, 3, 1.0, B, 3, A, 2, 0.0, D, 4);
    /* E = alpha X Y^T + beta E, row-major: X 2 x 2 in D (lda 4), Y 4 x 2 in C1, E 2 x 4 with ldc 6 */
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, 2, 4, 2, alpha, D, 4, C1, 2, beta, E, 6);
    /* F = 0.7 X^T Y + 0 F, row-major: X 3 x 3 in B (lda 4), Y 3 x 3 in E (ldb 4): 3 x 3 with ldc 4 */
    cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, 3, 3, 3, 0.7, B, 4, E, 4, 0.0, F, 4);
    /* C1 = 0.5 D^T(as 2 x 4 row) ... : column-major, A^T op with padding, beta 1 */
    cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, 2, 4, 2, 0.5, D, 4, E, 3, 1.0, C1, 2);
    double s = 0;
    for (int k = 0; k < 8; k++)
        s += sin(C1[k]) + 0.1 * D[k] * D[k];
    for (int k = 0; k < 12; k++)
        s += 0.2 * cos(E[k]) + 0.3 * F[k];
    free(F);
    return s;
}

int main(void) {
    double p1[NP], p2[NP], p3[NP];
    fill_points(p1, p2, p3, 0.05);
    p2[27] = 0.0; /* beta 0 */
    check_points(p1, p2, p3);
    return zyg_report();
}
