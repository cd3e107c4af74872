// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// realloc inside the differentiated function: a buffer that grows by doubling while values
// are appended (reads before and after each move), realloc(NULL, n), and a shrink. The
// shadow moves with the data; the old shadow stays alive for the adjoint of earlier reads.
#include <stdlib.h>
#include "zyg_check.h"

double grow(const double *x, int n) {
    int cap = 2, len = 0;
    double *buf = malloc(cap * sizeof(double));
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        if (len == cap) {
            cap *= 2;
            buf = realloc(buf, cap * sizeof(double));
        }
        buf[len] = sin(x[i]) + (len ? buf[len - 1] * x[i] : 0.0);
        len++;
        s += buf[len / 2] * buf[len - 1];
    }
    double *small = realloc(buf, 3 * sizeof(double));  // shrink: keeps the first three
    s += small[0] * small[1] * small[2];
    free(small);
    return s;
}

double from_null(const double *x, int n) {
    double *p = realloc(NULL, n * sizeof(double));
    for (int i = 0; i < n; i++)
        p[i] = x[i] * x[i];
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += p[i] * p[(i + 1) % n];
    free(p);
    return s;
}

static double fd(double (*f)(const double *, int), const double *x, int n, int k) {
    double a[16], b[16], h = 1e-6;
    for (int i = 0; i < n; i++) a[i] = b[i] = x[i];
    a[k] += h;
    b[k] -= h;
    return (f(a, n) - f(b, n)) / (2 * h);
}

int main(void) {
    double pts[2][9] = {{0.3, -0.8, 1.4, 0.2, -1.1, 0.6, 0.9, -0.4, 0.5},
                        {1.0, 0.5, -0.25, 0.7, -0.7, 0.1, -0.3, 0.8, -0.6}};
    for (int p = 0; p < 2; p++) {
        double *x = pts[p], dx[9] = {0}, dy[9] = {0};
        __enzyme_autodiff((void *)grow, enzyme_dup, x, dx, enzyme_const, 9);
        __enzyme_autodiff((void *)from_null, enzyme_dup, x, dy, enzyme_const, 9);
        for (int k = 0; k < 9; k++) {
            check_close("dgrow/dx", dx[k], fd(grow, x, 9, k), FD_RTOL, FD_ATOL);
            check_close("dfrom_null/dx", dy[k], fd(from_null, x, 9, k), FD_RTOL, FD_ATOL);
        }
    }
    return zyg_report();
}
