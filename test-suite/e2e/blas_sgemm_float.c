// REQUIRES: blas
// RUN: %grad-run-blas -O0 %s %t | FileCheck %s
// RUN: %grad-run-blas -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// The float forms through zyg's BLAS rules: cblas_sgemm (column- and row-major,
// transposed, beta active), cblas_sgemv, cblas_saxpy, cblas_sdot, cblas_snrm2. Reverse
// mode against central differences (a larger step and tolerance: the function is
// computed in float), forward mode along a direction, three points.
#include <cblas.h>
#define NP 16
#define BLAS_STEP 1e-2
#define BLAS_RTOL 2e-3
#define BLAS_ATOL 2e-3
#include "zyg_blas_check.h"

/* p: A[0..6) (2 x 3), B[6..12) (3 x 2), x[12..14), alpha, beta */
static double f(const double *p) {
    float A[6], B[6], C[4] = {0.5f, -0.25f, 1.0f, 0.75f}, D[9], x[2], y[3] = {0};
    for (int k = 0; k < 6; k++) {
        A[k] = (float)p[k];
        B[k] = (float)p[6 + k];
    }
    x[0] = (float)p[12];
    x[1] = (float)p[13];
    float alpha = (float)p[14], beta = (float)p[15];
    cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, 2, 2, 3, alpha, A, 2, B, 3, beta, C, 2);
    cblas_sgemm(CblasRowMajor, CblasTrans, CblasTrans, 3, 3, 2, 1.0f, A, 3, B, 2, 0.0f, D, 3);
    cblas_sgemv(CblasRowMajor, CblasNoTrans, 3, 2, alpha, B, 2, x, 1, 0.0f, y, 1);
    cblas_saxpy(3, beta, D, 3, y, 1);
    float s = cblas_sdot(4, C, 1, C, 1) + cblas_sdot(3, y, 1, D + 1, 3);
    return (double)(s + 0.5f * cblas_snrm2(3, y, 1));
}

int main(void) {
    double p1[NP], p2[NP], p3[NP];
    fill_points(p1, p2, p3, 0.05);
    check_points(p1, p2, p3);
    return zyg_report();
}
