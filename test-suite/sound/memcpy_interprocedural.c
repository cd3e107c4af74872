// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// RUN: %grad-run -O3 %s %t.native -march=native | FileCheck %s
// Copies made by helpers that see only bytes: move8 copies 8 bytes through an integer (at
// -O2 a load and store of i64), copy_n a run of them with memcpy. What the bytes hold is
// known only from the callers, which read them as doubles: the type analysis follows the
// pointers across the calls, so the copies move derivatives.
// CHECK-NOT: FAIL
// CHECK: ALL OK
#include <string.h>
#include "zyg_check.h"

__attribute__((noinline)) void move8(void *dst, const void *src) { memcpy(dst, src, 8); }
__attribute__((noinline)) void copy_n(void *dst, const void *src, int n) { memcpy(dst, src, (size_t)n * 8); }

enum { N = 6 };

double f(const double *x, void *unused) {
    (void)unused;
    double a[N], b[N];
    for (int i = 0; i < N; i++)
        a[i] = x[i] * x[i];
    for (int i = 0; i + 1 < N; i += 2)
        move8(&b[i], &a[i + 1]), move8(&b[i + 1], &a[i]);
    copy_n(a, b, N);
    double s = 0;
    for (int i = 0; i < N; i++)
        s += a[i] * sin(x[i]);
    return s;
}

int main(void) {
    double x[N] = {0.5, -1.2, 0.8, 0.3, -0.6, 1.1}, dx[N] = {0};
    __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, (void *)0);
    check_array_fd("df/dx", f, 0, x, N, dx);
    return zyg_report();
}
