// REQUIRES: blas
// RUN: %grad-run-blas -O0 %s %t | FileCheck %s
// RUN: %grad-run-blas -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// BLAS level 1 through zyg's BLAS rules: cblas_dcopy, cblas_dscal (alpha active and the
// array overwritten), cblas_daxpy (unit, strided and negative increments), cblas_ddot
// (one result used twice, an array dotted with itself) and cblas_dnrm2, on stack arrays
// and heap memory. Reverse mode against central differences in each parameter, forward
// mode along a direction, at three points.
#include <cblas.h>
#include <stdlib.h>
#define N 5
#define NP (2 * N + 2)
#include "zyg_blas_check.h"

/* p: x[0..N), y[N..2N), alpha, beta */
static double f(const double *p) {
    const double *x = p, *y = p + N;
    double alpha = p[2 * N], beta = p[2 * N + 1];
    double u[N], *v = malloc(N * sizeof(double));
    cblas_dcopy(N, x, 1, u, 1);
    cblas_dcopy(N, y, 1, v, 1);
    cblas_dscal(N, alpha, u, 1);               /* u = alpha x */
    cblas_daxpy(N, beta * alpha, y, 1, u, 1);  /* u += alpha beta y */
    cblas_daxpy(3, 0.5, u, 2, v, 1);           /* v[0..3) += u[0], u[2], u[4] */
    cblas_daxpy(2, beta, x, -2, v + 3, 1);     /* v[3] += beta x[2], v[4] += beta x[0] */
    cblas_dscal(2, 1.5, v + 1, 2);             /* v[1], v[3] *= 1.5 (alpha constant) */
    double d = cblas_ddot(N, u, 1, v, 1);
    double r = cblas_dnrm2(N, v, 1);
    double s = cblas_ddot(3, u, 1, u, 1);      /* u with itself */
    double w = cblas_ddot(2, x, 2, y, -1);
    free(v);
    return d * sin(r) + s / (1.0 + r * r) + w * d;
}

int main(void) {
    double p1[NP] = {0.3, -1.2, 0.8, 2.0, -0.4, 1.1, 0.6, -0.9, 0.2, 1.4, 0.7, -1.3};
    double p2[NP], p3[NP];
    for (int k = 0; k < NP; k++) {
        p2[k] = cos(0.9 * k) * 1.5;
        p3[k] = 0.5 - 0.17 * k;
    }
    check_points(p1, p2, p3);
    return zyg_report();
}
