// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Forward mode through heap memory made and freed inside the differentiated function:
// malloc'd work arrays filled in a loop, calloc'd accumulators, memcpy between heap and
// `dup` memory, memset to clear a buffer reused across passes, a heap array of pointers to
// heap rows, and a helper that allocates and returns a buffer the caller frees. Tangents
// against central differences along the same direction.
#include <stdlib.h>
#include <string.h>
#include "zyg_check.h"

#define N 6

static double *make_scaled(const double *x, double s, int n) {
    double *r = malloc(n * sizeof(double));
    for (int i = 0; i < n; i++) r[i] = s * x[i] + sin(x[i]);
    return r;
}

/* Smooths x three times through heap buffers; writes the result to y; returns its energy. */
static double smooth3(const double *x, double *y, double s, int n) {
    double *init = make_scaled(x, s, n);
    double *a = malloc(n * sizeof(double));
    double *b = malloc(n * sizeof(double));
    /* a copy of the helper's buffer, and a memcpy into the helper's buffer itself (once
     * refused at -O0: the shadow of a returned heap buffer was taken for one that may be
     * null) */
    memcpy(a, init, n * sizeof(double));
    memcpy(init, x, sizeof(double));
    a[0] += 0.5 * init[0] * init[1];
    free(init);
    for (int pass = 0; pass < 3; pass++) {
        memset(b, 0, n * sizeof(double));
        for (int i = 0; i < n; i++) {
            b[i] += 0.5 * a[i];
            if (i > 0) b[i] += 0.25 * a[i - 1] * a[i - 1];
            if (i + 1 < n) b[i] += 0.25 * tanh(a[i + 1]);
        }
        memcpy(a, b, n * sizeof(double));
    }
    memcpy(y, a, n * sizeof(double));
    double e = 0;
    for (int i = 0; i < n; i++) e += a[i] * a[i];
    free(b);
    free(a);
    return e;
}

/* calloc'd histogram-like accumulators and a table of heap rows */
static double rows(const double *x, int n, int m) {
    double *acc = calloc(m, sizeof(double));
    double **tab = malloc(m * sizeof(double *));
    for (int r = 0; r < m; r++) {
        tab[r] = malloc(n * sizeof(double));
        for (int i = 0; i < n; i++) tab[r][i] = pow(x[i] * x[i] + 1.0, 0.5 * (r + 1));
    }
    for (int r = 0; r < m; r++)
        for (int i = 0; i < n; i++) acc[(r + i) % m] += tab[r][i] / (1.0 + r);
    double s = 0;
    for (int r = 0; r < m; r++) {
        s += acc[r] * acc[r] * (r + 1);
        free(tab[r]);
    }
    free(tab);
    free(acc);
    return sqrt(s);
}

int main(void) {
    double base[3][N] = {{0.3, -0.5, 0.8, 1.1, -0.2, 0.6}, {1.2, 0.7, -0.9, 0.1, 0.45, -1.3}, {-0.6, 0.25, 1.5, -0.8, 0.9, 0.05}};
    double dirs[2][N] = {{0, 0, 1, 0, 0, 0}, {0.3, -0.2, 0.5, 0.7, -0.6, 0.1}};
    double h = 1e-6;
    for (int p = 0; p < 3; p++)
        for (int d = 0; d < 2; d++) {
            double x[N], dx[N], xp[N], xm[N], y[N], dy[N], yp[N], ym[N];
            memcpy(x, base[p], sizeof x);
            memcpy(dx, dirs[d], sizeof dx);
            for (int i = 0; i < N; i++) xp[i] = x[i] + h * dx[i], xm[i] = x[i] - h * dx[i];
            double ds = d ? 0.4 : -1.0;
            double t = __enzyme_fwddiff((void *)smooth3, enzyme_dup, x, dx, enzyme_dup, y, dy, 0.9, ds, enzyme_const, N);
            double ep = smooth3(xp, yp, 0.9 + h * ds, N), em = smooth3(xm, ym, 0.9 - h * ds, N);
            check_close("smooth3 energy", t, (ep - em) / (2 * h), FD_RTOL, FD_ATOL);
            for (int i = 0; i < N; i++) check_close("smooth3 y", dy[i], (yp[i] - ym[i]) / (2 * h), FD_RTOL, FD_ATOL);
            for (int m = 2; m <= 4; m += 2) {
                t = __enzyme_fwddiff((void *)rows, enzyme_dup, x, dx, enzyme_const, N, enzyme_const, m);
                check_close("rows", t, (rows(xp, N, m) - rows(xm, N, m)) / (2 * h), FD_RTOL, FD_ATOL);
            }
        }
    return zyg_report();
}
