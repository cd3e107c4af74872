// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Swaps through a pointer helper and inline: reversing an array in place, rotating it
// with a temporary, and a bubble sort whose swaps depend on the data (away from ties the
// result is a permutation, so the gradient moves with the values).
#include "zyg_check.h"

__attribute__((noinline)) static void swap(double *a, double *b) {
    double t = *a;
    *a = *b;
    *b = t;
}

double permute_loss(double *x, int n) {
    for (int i = 0; i < n / 2; i++)
        swap(&x[i], &x[n - 1 - i]);
    for (int r = 0; r < 2; r++) { /* rotate left by one, twice */
        double first = x[0];
        for (int i = 0; i + 1 < n; i++)
            x[i] = x[i + 1];
        x[n - 1] = first;
    }
    for (int i = 0; i < n; i++)
        x[i] = x[i] * x[i] * (i % 2 ? 1.0 : -0.5) + x[i];
    for (int pass = 0; pass < n; pass++)
        for (int i = 0; i + 1 < n - pass; i++)
            if (x[i] > x[i + 1]) {
                double t = x[i];
                x[i] = x[i + 1];
                x[i + 1] = t;
            }
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += x[i] * (i + 1) + 0.1 * sin(x[i]) * i;
    return s;
}

enum { N = 7 };
static double loss_copy(const double *x) {
    double y[N];
    for (int i = 0; i < N; i++) y[i] = x[i];
    return permute_loss(y, N);
}

static double fd(double (*g)(const double *), const double *x, int n, int k) {
    double a[64], b[64], h = ZYG_STEP(x[k]);
    for (int i = 0; i < n; i++) a[i] = b[i] = x[i];
    a[k] += h;
    b[k] -= h;
    return (g(a) - g(b)) / (2 * h);
}

int main(void) {
    double pts[2][N] = {{0.5, -1.2, 2.0, 0.3, -0.7, 1.4, 0.9}, {-2.1, 0.8, 0.15, 1.6, -0.45, 0.6, -1.3}};
    for (int p = 0; p < 2; p++) {
        double x[N], dx[N] = {0};
        for (int i = 0; i < N; i++) x[i] = pts[p][i];
        __enzyme_autodiff((void *)permute_loss, x, dx, N);
        for (int k = 0; k < N; k++)
            check_close("dx", dx[k], fd(loss_copy, pts[p], N, k), FD_RTOL, FD_ATOL);
    }
    return zyg_report();
}
