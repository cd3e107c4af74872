// REQUIRES: blas
// RUN: %grad-run-blas -O0 %s %t | FileCheck %s
// RUN: %grad-run-blas -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// cblas_dgemv through zyg's BLAS rules: column-major without transpose and a leading
// dimension past the rows, row-major transposed, column-major transposed with a strided
// output; alpha and beta active, beta 0 and not, y overwritten. Reverse mode against
// central differences in each parameter, forward mode along a direction, three points.
#include <cblas.h>
#define NP 21
#include "zyg_blas_check.h"

/* p: A[0..12) (3 x 4), x[12..16), y[16..19), alpha, beta */
static double f(const double *p) {
    const double *A = p, *x = p + 12, *y = p + 16;
    double alpha = p[19], beta = p[20];
    double pad[5 * 4], y1[3], z[4], w[6] = {0};
    for (int j = 0; j < 4; j++)
        for (int i = 0; i < 5; i++)
            pad[i + 5 * j] = i < 3 ? A[i + 3 * j] : 100.0;
    for (int i = 0; i < 3; i++)
        y1[i] = y[i];
    for (int i = 0; i < 4; i++)
        z[i] = 0.5 + 0.1 * i;
    /* y1 = alpha A x + beta y1, A column-major 3 x 4 with lda 5 */
    cblas_dgemv(CblasColMajor, CblasNoTrans, 3, 4, alpha, pad, 5, x, 1, beta, y1, 1);
    /* z = 1.3 A^T y1 + beta z, A read as row-major 3 x 4 */
    cblas_dgemv(CblasRowMajor, CblasTrans, 3, 4, 1.3, A, 4, y1, 1, beta, z, 1);
    /* w[0,2,4] = alpha B^T z, B the column-major 4 x 3 matrix A's memory holds */
    cblas_dgemv(CblasColMajor, CblasTrans, 4, 3, alpha, A, 4, z, 1, 0.0, w, 2);
    double s = 0;
    for (int i = 0; i < 6; i++)
        s += sin(w[i]) * (1 + 0.1 * i);
    for (int i = 0; i < 4; i++)
        s += 0.05 * z[i] * z[i];
    return s;
}

int main(void) {
    double p1[NP], p2[NP], p3[NP];
    fill_points(p1, p2, p3, 0.07);
    p3[20] = 0.0; /* beta 0: the old y is not read, its adjoint is 0 */
    check_points(p1, p2, p3);
    return zyg_report();
}
