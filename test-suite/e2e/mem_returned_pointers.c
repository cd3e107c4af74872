// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Functions that return pointers into differentiated memory: an accessor returning a row
// of a dup matrix (read and written through), a pointer-bumping helper, and an allocating
// constructor whose memory the caller fills and frees. Their primals hand back the
// returned pointer's shadow.
#include <stdlib.h>
#include "zyg_check.h"

__attribute__((noinline)) double *row(double *m, int cols, int i) { return m + i * cols; }
__attribute__((noinline)) const double *skip_small(const double *p, const double *end) {
    while (p < end && fabs(*p) < 0.25)
        p++;
    return p;
}
__attribute__((noinline)) double *new_vector(int n) { return calloc(n, sizeof(double)); }

double f(double *m, int rows, int cols) {
    double *v = new_vector(cols);
    for (int i = 0; i < rows; i++) {
        double *r = row(m, cols, i);
        for (int j = 0; j < cols; j++) {
            v[j] += r[j] * r[(j + 1) % cols];
            r[j] = sin(r[j]);  // written through the returned pointer
        }
    }
    const double *first = skip_small(m, m + rows * cols);
    double s = first < m + rows * cols ? *first * 2.0 : 0.0;
    for (int j = 0; j < cols; j++)
        s += v[j] * row(m, cols, j % rows)[j];
    free(v);
    return s;
}

static double fd(const double *m0, int k) {
    double a[12], b[12], h = 1e-6;
    for (int i = 0; i < 12; i++) a[i] = b[i] = m0[i];
    a[k] += h;
    b[k] -= h;
    return (f(a, 3, 4) - f(b, 3, 4)) / (2 * h);
}

int main(void) {
    double pts[2][12] = {{0.1, -0.8, 1.4, 0.2, -1.1, 0.6, 0.9, -0.4, 0.5, 0.3, -0.2, 0.7},
                         {0.05, 0.2, -0.25, 0.7, -0.7, 0.1, -0.3, 0.8, -0.6, 1.2, 0.4, -0.9}};
    for (int p = 0; p < 2; p++) {
        double m[12], dm[12] = {0};
        for (int i = 0; i < 12; i++) m[i] = pts[p][i];
        __enzyme_autodiff((void *)f, enzyme_dup, m, dm, enzyme_const, 3, enzyme_const, 4);
        for (int k = 0; k < 12; k++)
            check_close("df/dm", dm[k], fd(pts[p], k), FD_RTOL, FD_ATOL);
    }
    return zyg_report();
}
