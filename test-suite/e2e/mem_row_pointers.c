// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// A matrix as an array of row pointers (double **rows, built by the caller and by the
// differentiated function itself into a malloc'd table): pointers to active memory stored
// in memory, whose shadows are the caller's table of shadow rows and a table built beside it.
#include <stdlib.h>
#include "zyg_check.h"

enum { R = 3, C = 4 };

double frob_rows(double *const *rows, int r, int c) {
    double s = 0.0;
    for (int i = 0; i < r; i++)
        for (int j = 0; j < c; j++)
            s += rows[i][j] * rows[i][j] * (i + 1) + sin(rows[i][j]);
    return s;
}

double table_loss(const double *m) {
    const double **rows = malloc(R * sizeof *rows);
    for (int i = 0; i < R; i++)
        rows[i] = m + i * C;
    double s = 0.0;
    for (int i = 0; i < R; i++)
        for (int j = 0; j < C; j++)
            s += rows[i][j] * rows[(i + 1) % R][j];
    free(rows);
    return s;
}

static double table_flat(const double *m) { return table_loss(m); }
static double frob_flat(const double *m) {
    double *rows[R], copy[R * C];
    for (int i = 0; i < R * C; i++) copy[i] = m[i];
    for (int i = 0; i < R; i++) rows[i] = copy + i * C;
    return frob_rows(rows, R, C);
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
        double m[R * C], dm[R * C] = {0}, dm2[R * C] = {0};
        for (int i = 0; i < R * C; i++) m[i] = sin(1.3 * i + 0.2 + q);
        /* caller-built row tables: rows and their shadows */
        double *rows[R], *drows[R];
        for (int i = 0; i < R; i++) rows[i] = m + i * C, drows[i] = dm + i * C;
        __enzyme_autodiff((void *)frob_rows, enzyme_dup, rows, drows, enzyme_const, R, enzyme_const, C);
        for (int k = 0; k < R * C; k++) {
            check_close("frob_rows dm", dm[k], 2 * m[k] * (k / C + 1) + cos(m[k]), 1e-12, 1e-14);
            check_close("frob_rows dm (fd)", dm[k], fd(frob_flat, m, R * C, k), FD_RTOL, FD_ATOL);
        }
        __enzyme_autodiff((void *)table_loss, enzyme_dup, m, dm2);
        for (int k = 0; k < R * C; k++)
            check_close("table_loss dm", dm2[k], fd(table_flat, m, R * C, k), FD_RTOL, FD_ATOL);
    }
    return zyg_report();
}
