// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Recursive merge sort over a local copy, merging the sorted halves into a malloc'd
// scratch buffer shared by all activations and copying back: the sorted order depends on
// the data (no ties), so a weighted sum of the sorted values has a permutation gradient.
#include <stdlib.h>
#include "zyg_check.h"

static void msort(double *a, double *tmp, int n) {
    if (n < 2)
        return;
    int h = n / 2;
    msort(a, tmp, h);
    msort(a + h, tmp, n - h);
    int i = 0, j = h, k = 0;
    while (i < h && j < n)
        tmp[k++] = a[i] <= a[j] ? a[i++] : a[j++];
    while (i < h)
        tmp[k++] = a[i++];
    while (j < n)
        tmp[k++] = a[j++];
    for (k = 0; k < n; k++)
        a[k] = tmp[k];
}

double sorted_loss(const double *x, int n) {
    double *a = malloc(n * sizeof(double)), *tmp = malloc(n * sizeof(double));
    for (int i = 0; i < n; i++)
        a[i] = x[i] * x[i] - x[i];
    msort(a, tmp, n);
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += a[i] * (i + 1) + 0.1 * a[i] * a[i] * (i % 3);
    free(tmp);
    free(a);
    return s;
}

enum { N = 9 };
static double loss_n(const double *x) { return sorted_loss(x, N); }

static double fd(double (*g)(const double *), const double *x, int n, int k) {
    double a[64], b[64], h = ZYG_STEP(x[k]);
    for (int i = 0; i < n; i++) a[i] = b[i] = x[i];
    a[k] += h;
    b[k] -= h;
    return (g(a) - g(b)) / (2 * h);
}

int main(void) {
    double pts[2][N] = {{0.9, -1.3, 2.2, 0.15, -0.4, 1.7, 3.1, -2.0, 0.6},
                        {1.4, 0.3, -0.8, 2.6, -1.9, 0.05, 1.1, -0.55, 2.0}};
    for (int q = 0; q < 2; q++) {
        double dx[N] = {0};
        __enzyme_autodiff((void *)sorted_loss, enzyme_dup, pts[q], dx, enzyme_const, N);
        for (int k = 0; k < N; k++)
            check_close("dx", dx[k], fd(loss_n, pts[q], N, k), FD_RTOL, FD_ATOL);
    }
    return zyg_report();
}
