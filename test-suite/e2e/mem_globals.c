// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Global variables that carry active data: a global scratch array written and read inside
// the function, a global scalar accumulator, a constant lookup table (inactive), and model
// parameters held in a global whose gradient the program reads from its shadow global,
// `__zyg_shadow_<name>`.
#include "zyg_check.h"

static double scratch[8];
double acc;
static const double table[4] = {0.5, -1.0, 2.0, 0.25};
double weights[3] = {0.7, -0.3, 1.1};
extern double __zyg_shadow_weights[3];
int calls;  // an int global: no shadow

double f(const double *x, int n) {
    calls++;
    acc = 0.0;
    for (int i = 0; i < n; i++)
        scratch[i] = sin(x[i]) * table[i % 4];
    for (int i = 0; i < n; i++) {
        scratch[i] = scratch[i] * scratch[(i + 1) % n] + x[i];  // in place: old values needed
        acc += scratch[i] * weights[i % 3];
    }
    return acc * acc + scratch[n - 1];
}

static double fd(const double *x, int n, int k) {
    double a[8], b[8], h = 1e-6;
    for (int i = 0; i < n; i++) a[i] = b[i] = x[i];
    a[k] += h;
    b[k] -= h;
    return (f(a, n) - f(b, n)) / (2 * h);
}

int main(void) {
    double pts[2][6] = {{0.3, -0.8, 1.4, 0.2, -1.1, 0.6}, {1.0, 0.5, -0.25, 2.0, -0.7, 0.1}};
    for (int p = 0; p < 2; p++) {
        double *x = pts[p], dx[6] = {0};
        for (int j = 0; j < 3; j++) __zyg_shadow_weights[j] = 0.0;
        __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, 6);
        for (int k = 0; k < 6; k++)
            check_close("df/dx", dx[k], fd(x, 6, k), FD_RTOL, FD_ATOL);
        for (int j = 0; j < 3; j++) {
            double w = weights[j], h = 1e-6;
            weights[j] = w + h;
            double up = f(x, 6);
            weights[j] = w - h;
            double down = f(x, 6);
            weights[j] = w;
            check_close("df/dweights", __zyg_shadow_weights[j], (up - down) / (2 * h), FD_RTOL, FD_ATOL);
        }
    }
    return zyg_report();
}
