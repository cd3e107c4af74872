// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Two-dimensional arrays `double a[4][3]` as a dup parameter and as locals: row and column
// reductions, a transpose into a local b[3][4], and an update of a local 2-D array in
// place; indexing goes through two getelementptr levels.
#include "zyg_check.h"

double grid_loss(double a[4][3], const double w[3]) {
    double b[3][4], rows[4];
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 3; j++)
            b[j][i] = a[i][j] * w[j];
    for (int i = 0; i < 4; i++) {
        rows[i] = 0.0;
        for (int j = 0; j < 3; j++)
            rows[i] += a[i][j] * a[i][j];
        rows[i] = sqrt(rows[i] + 0.5);
    }
    for (int j = 0; j < 3; j++)
        for (int i = 1; i < 4; i++)
            b[j][i] += 0.5 * b[j][i - 1];
    double s = 0.0;
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < 4; i++)
            s += sin(b[j][i]) * rows[i];
    return s;
}

/* z = (a[4][3] row-major, w[3]) */
static double loss_flat(const double *z) {
    double a[4][3];
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 3; j++) a[i][j] = z[3 * i + j];
    return grid_loss(a, z + 12);
}

static double fd(double (*g)(const double *), const double *x, int n, int k) {
    double a[64], b[64], h = ZYG_STEP(x[k]);
    for (int i = 0; i < n; i++) a[i] = b[i] = x[i];
    a[k] += h;
    b[k] -= h;
    return (g(a) - g(b)) / (2 * h);
}

int main(void) {
    double pts[2][15] = {{0.3, -0.5, 1.2, 0.7, 0.1, -0.9, -1.1, 0.4, 0.6, 0.2, 0.8, -0.3, 1.5, -0.7, 0.9},
                         {-0.6, 0.9, 0.05, 1.3, -0.4, 0.5, 0.8, -1.2, 0.25, -0.1, 0.65, 1.05, 0.4, 1.1, -1.3}};
    for (int q = 0; q < 2; q++) {
        double a[4][3], da[4][3] = {{0}}, w[3], dw[3] = {0};
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 3; j++) a[i][j] = pts[q][3 * i + j];
        for (int j = 0; j < 3; j++) w[j] = pts[q][12 + j];
        __enzyme_autodiff((void *)grid_loss, enzyme_dup, a, da, enzyme_dup, w, dw);
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 3; j++)
                check_close("da", da[i][j], fd(loss_flat, pts[q], 15, 3 * i + j), FD_RTOL, FD_ATOL);
        for (int j = 0; j < 3; j++)
            check_close("dw", dw[j], fd(loss_flat, pts[q], 15, 12 + j), FD_RTOL, FD_ATOL);
    }
    return zyg_report();
}
