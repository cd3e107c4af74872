// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// calloc'd accumulators: a weighted scatter-add into bins chosen by a const int index
// array (several samples per bin), a calloc'd per-bin second moment, then a nonlinear
// loss over the bins; both buffers are freed before return.
#include <stdlib.h>
#include "zyg_check.h"

double binned(const double *x, const double *w, const int *bin, int n, int nbins) {
    double *sum = calloc(nbins, sizeof(double));
    double *sq = calloc(nbins, sizeof *sq);
    for (int i = 0; i < n; i++) {
        sum[bin[i]] += w[i] * x[i];
        sq[bin[i]] += w[i] * x[i] * x[i];
    }
    double loss = 0.0;
    for (int b = 0; b < nbins; b++)
        loss += log(1.0 + sq[b]) - 0.3 * sum[b] * sum[b];
    free(sum);
    free(sq);
    return loss;
}

enum { N = 9, NB = 4 };
static const int bins[N] = {0, 2, 1, 2, 3, 0, 1, 2, 3};
/* z = (x, w) */
static double binned_flat(const double *z) { return binned(z, z + N, bins, N, NB); }

static double fd(double (*g)(const double *), const double *x, int n, int k) {
    double a[64], b[64], h = ZYG_STEP(x[k]);
    for (int i = 0; i < n; i++) a[i] = b[i] = x[i];
    a[k] += h;
    b[k] -= h;
    return (g(a) - g(b)) / (2 * h);
}

int main(void) {
    double pts[2][2 * N] = {
        {0.5, -1.2, 0.8, 2.0, -0.3, 1.1, 0.4, -0.7, 0.9, 1.0, 0.5, 2.0, 0.3, 1.5, 0.8, 1.2, 0.6, 0.9},
        {-0.9, 0.3, 1.4, -0.5, 0.7, 0.2, -1.3, 0.6, 0.1, 0.4, 1.6, 0.7, 1.1, 0.2, 1.9, 0.5, 1.3, 0.8}};
    for (int q = 0; q < 2; q++) {
        double *z = pts[q], dx[N] = {0}, dw[N] = {0};
        __enzyme_autodiff((void *)binned, enzyme_dup, z, dx, enzyme_dup, z + N, dw, enzyme_const, bins,
                          enzyme_const, N, enzyme_const, NB);
        for (int k = 0; k < N; k++) {
            check_close("dx", dx[k], fd(binned_flat, z, 2 * N, k), FD_RTOL, FD_ATOL);
            check_close("dw", dw[k], fd(binned_flat, z, 2 * N, N + k), FD_RTOL, FD_ATOL);
        }
    }
    return zyg_report();
}
