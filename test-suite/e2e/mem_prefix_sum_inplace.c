// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// RUN: %grad-run -O3 %s %t.o3 %march-v3 | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Scans computed in place: an inclusive prefix sum and a damped suffix sum over one dup
// array, and a prefix product over a second; each element is read after it was rewritten
// by the previous iteration (loop-carried through memory, not through registers).
#include "zyg_check.h"

double scans(double *x, double *y, int n) {
    for (int i = 1; i < n; i++)
        x[i] += x[i - 1];
    for (int i = n - 2; i >= 0; i--)
        x[i] += 0.5 * x[i + 1];
    for (int i = 1; i < n; i++)
        y[i] = y[i] * y[i - 1] * 0.9;
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += sin(x[i]) * y[i] + 0.1 * x[i] * x[i];
    return s;
}

enum { N = 7 };
/* z = (x, y) flattened, copied */
static double scans_copy(const double *z) {
    double x[N], y[N];
    for (int i = 0; i < N; i++) x[i] = z[i], y[i] = z[N + i];
    return scans(x, y, N);
}

static double fd(double (*g)(const double *), const double *x, int n, int k) {
    double a[64], b[64], h = ZYG_STEP(x[k]);
    for (int i = 0; i < n; i++) a[i] = b[i] = x[i];
    a[k] += h;
    b[k] -= h;
    return (g(a) - g(b)) / (2 * h);
}

int main(void) {
    double pts[2][2 * N] = {
        {0.3, -0.2, 0.5, 0.1, -0.4, 0.2, 0.6, 1.1, 0.9, -1.2, 1.05, 0.8, -0.95, 1.3},
        {-0.5, 0.4, 0.05, -0.3, 0.25, 0.35, -0.1, 0.7, -1.1, 0.85, 1.2, -0.9, 1.0, 0.6}};
    for (int p = 0; p < 2; p++) {
        double x[N], y[N], dx[N] = {0}, dy[N] = {0};
        for (int i = 0; i < N; i++) x[i] = pts[p][i], y[i] = pts[p][N + i];
        double r = __enzyme_autodiff((void *)scans, enzyme_dup, x, dx, enzyme_dup, y, dy, enzyme_const, N);
        (void)r;
        for (int k = 0; k < N; k++) {
            check_close("dx", dx[k], fd(scans_copy, pts[p], 2 * N, k), FD_RTOL, FD_ATOL);
            check_close("dy", dy[k], fd(scans_copy, pts[p], 2 * N, N + k), FD_RTOL, FD_ATOL);
        }
    }
    return zyg_report();
}
