// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// `dup` arguments that alias: the same array passed twice (once read, once written in
// place), and overlapping windows of one array. Their shadows alias as the primals do (the
// same shadow array, at the same offsets), as the C API asks, and the gradient is right:
// the adjoint follows the memory, not the argument it came through.
// CHECK-NOT: FAIL
// CHECK: ALL OK
#include "zyg_check.h"

enum { N = 6 };

__attribute__((noinline)) void smooth(double *out, const double *in, int n) {
    for (int i = 1; i < n - 1; i++)
        out[i] = 0.25 * in[i - 1] + 0.5 * in[i] * in[i] + 0.25 * in[i + 1];
}

double f(double *a, const double *b) {
    smooth(a, a, N);        /* in place: in and out alias */
    double s = 0;
    for (int i = 0; i < N - 1; i++)
        s += a[i] * b[i + 1]; /* b is a window of a, one element on */
    return s;
}

static double f_of(const double *x, void *unused) {
    (void)unused;
    double a[N];
    for (int i = 0; i < N; i++)
        a[i] = x[i];
    return f(a, a);
}

int main(void) {
    double x[N] = {0.5, -1.2, 0.8, 0.3, -0.6, 1.1};
    double a[N], da[N] = {0};
    for (int i = 0; i < N; i++)
        a[i] = x[i];
    /* b = a and its shadow da: the same memory through two arguments. */
    __enzyme_autodiff((void *)f, enzyme_dup, a, da, enzyme_dup, a, da);
    check_array_fd("df/dx", f_of, 0, x, N, da);
    return zyg_report();
}
