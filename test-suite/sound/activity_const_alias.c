// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// A `const` pointer argument says its memory is not differentiated: the gradient is the
// partial derivative holding that memory fixed. When the caller passes memory that a `dup`
// argument also reaches, zyg does not see through the alias (as Enzyme does not): the
// reads through the `const` pointer count as constants. README, "What zyg assumes".
// CHECK-NOT: FAIL
// CHECK: ALL OK
#include "zyg_check.h"

enum { N = 4 };

double f(double *x, const double *w) {
    double s = 0;
    for (int i = 0; i < N; i++)
        s += w[i] * x[i] * x[i];
    return s;
}

/* The partial derivative in x with w held fixed at the values it had. */
static double w_fixed[N];
static double f_fixed(const double *x, void *unused) {
    (void)unused;
    return f((double *)x, w_fixed);
}

int main(void) {
    double x[N] = {0.5, -1.2, 0.8, 0.3}, dx[N] = {0};
    for (int i = 0; i < N; i++)
        w_fixed[i] = x[i];
    /* w is x itself, passed as const. */
    __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, x);
    check_array_fd("df/dx, w fixed", f_fixed, 0, x, N, dx);
    for (int i = 0; i < N; i++)
        check_close("2 w x", dx[i], 2 * x[i] * x[i], EXACT_RTOL, EXACT_ATOL);
    return zyg_report();
}
