// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// A global holding active values: a file-scope accumulator and a global scratch array
// written and read inside the differentiated function (as older C numerical code does).
#include "zyg_check.h"

enum { N = 5 };
static double g_acc;
static double g_work[N];

static void accumulate(const double *x, int n) {
    for (int i = 0; i < n; i++) {
        g_work[i] = x[i] * x[i];
        g_acc += sin(x[i]);
    }
}

double loss(const double *x, int n) {
    g_acc = 0.0;
    accumulate(x, n);
    double s = g_acc * g_acc;
    for (int i = 0; i < n; i++)
        s += g_work[i] * (i + 1);
    return s;
}

static double loss_n(const double *x) { return loss(x, N); }

static double fd(double (*g)(const double *), const double *x, int n, int k) {
    double a[64], b[64], h = ZYG_STEP(x[k]);
    for (int i = 0; i < n; i++) a[i] = b[i] = x[i];
    a[k] += h;
    b[k] -= h;
    return (g(a) - g(b)) / (2 * h);
}

int main(void) {
    double pts[2][N] = {{0.5, -1.1, 0.9, 0.2, -0.4}, {-0.8, 0.3, 1.4, -0.6, 0.75}};
    for (int q = 0; q < 2; q++) { /* the second gradient runs with the globals left dirty by the first */
        double dx[N] = {0};
        __enzyme_autodiff((void *)loss, enzyme_dup, pts[q], dx, enzyme_const, N);
        for (int k = 0; k < N; k++)
            check_close("dx", dx[k], fd(loss_n, pts[q], N, k), FD_RTOL, FD_ATOL);
    }
    return zyg_report();
}
