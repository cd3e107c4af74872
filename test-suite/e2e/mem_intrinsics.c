// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// memcpy (array and struct copies, and clang's copy of a constant initialiser), memset,
// and memmove in both directions over overlapping ranges.
#include <stdlib.h>
#include <string.h>
#include "zyg_check.h"

typedef struct { double a, b, c; } triple;

double f(const double *x, int n) {
    double w[3] = {0.5, -1.5, 2.0};
    double *buf = malloc(n * sizeof(double));
    memcpy(buf, x, n * sizeof(double));
    double z[8];
    memset(z, 0, sizeof z);
    for (int i = 0; i < n; i++) {
        buf[i] = buf[i] * buf[i];
        z[i % 8] += buf[i] * w[i % 3];
    }
    triple t = {z[0], z[1], z[2]}, u;
    u = t;
    memmove(buf + 1, buf, (n - 1) * sizeof(double));
    memmove(buf, buf + 2, (n - 2) * sizeof(double));
    double s = u.a * u.b + u.c;
    for (int i = 0; i < n; i++)
        s += sin(buf[i]) * (i + 1);
    free(buf);
    return s;
}

int main(void) {
    double x[6] = {0.3, -0.7, 1.1, 0.4, -1.3, 0.9}, dx[6] = {0};
    __enzyme_autodiff((void *)f, x, dx, 6);
    for (int k = 0; k < 6; k++) {
        double a[6], b[6], h = 1e-6;
        for (int i = 0; i < 6; i++) a[i] = b[i] = x[i];
        a[k] += h;
        b[k] -= h;
        check_close("dx[k]", dx[k], (f(a, 6) - f(b, 6)) / (2 * h), FD_RTOL, FD_ATOL);
    }
    return zyg_report();
}
