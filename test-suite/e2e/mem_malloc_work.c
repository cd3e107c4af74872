// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// malloc'd work arrays freed before return: two buffers live across the whole function,
// one freed early (before later code reads the others), and one allocated and freed in
// every iteration of a loop; the adjoint needs their contents after the primal's free.
#include <stdlib.h>
#include "zyg_check.h"

double work(const double *x, int n, int iters) {
    double *a = malloc(n * sizeof(double));
    double *b = malloc(n * sizeof(double));
    double *tmp = malloc(n * sizeof(double));
    for (int i = 0; i < n; i++)
        tmp[i] = exp(0.2 * x[i]);
    for (int i = 0; i < n; i++)
        a[i] = tmp[i] * x[(i + 1) % n];
    free(tmp); /* freed early */
    double s = 0.0;
    for (int t = 0; t < iters; t++) {
        double *w = malloc(n * sizeof(double));
        for (int i = 0; i < n; i++)
            w[i] = a[i] * cos(a[(i + t) % n]);
        for (int i = 0; i < n; i++) {
            b[i] = w[i] + 0.5 * w[(i + 1) % n];
            a[i] = 0.8 * a[i] + 0.1 * b[i];
        }
        s += b[t % n] * b[t % n];
        free(w);
    }
    for (int i = 0; i < n; i++)
        s += a[i] * b[i];
    free(a);
    free(b);
    return s;
}

enum { N = 6 };
static double work_n(const double *x) { return work(x, N, 4); }

static double fd(double (*g)(const double *), const double *x, int n, int k) {
    double a[64], b[64], h = ZYG_STEP(x[k]);
    for (int i = 0; i < n; i++) a[i] = b[i] = x[i];
    a[k] += h;
    b[k] -= h;
    return (g(a) - g(b)) / (2 * h);
}

int main(void) {
    double pts[2][N] = {{0.5, -1.0, 0.3, 1.2, -0.6, 0.9}, {1.4, 0.2, -0.8, 0.65, 0.1, -1.1}};
    for (int q = 0; q < 2; q++) {
        double dx[N] = {0};
        __enzyme_autodiff((void *)work, enzyme_dup, pts[q], dx, enzyme_const, N, enzyme_const, 4);
        for (int k = 0; k < N; k++)
            check_close("dx", dx[k], fd(work_n, pts[q], N, k), FD_RTOL, FD_ATOL);
    }
    return zyg_report();
}
