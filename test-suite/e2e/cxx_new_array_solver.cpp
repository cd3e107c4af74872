// C++ (exceptions on): new[]/delete[] scratch in a tridiagonal solver (Thomas algorithm,
// two new[] work arrays written in the forward sweep and read back in the backward one)
// and a single `new double` accumulator; gradients w.r.t. all three diagonals and the
// right-hand side.
// RUN: %clangxx -O0 -g -I %include -S -emit-llvm %s -o %t.O0.ll
// RUN: %zyg grad %t.O0.ll -o %t.O0.grad.ll && %clangxx %t.O0.grad.ll -lm -o %t.O0.exe && %t.O0.exe | FileCheck %s
// RUN: %clangxx -O2 -g -I %include -S -emit-llvm %s -o %t.O2.ll
// RUN: %zyg grad %t.O2.ll -o %t.O2.grad.ll && %clangxx %t.O2.grad.ll -lm -o %t.O2.exe && %t.O2.exe | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
extern "C" {
#include "zyg_check.h"
}

// a: sub-diagonal (a[0] unused), b: diagonal, c: super-diagonal (c[n-1] unused)
static void thomas(const double *a, const double *b, const double *c, const double *d, double *x, int n) {
    double *cp = new double[n];
    double *dp = new double[n];
    cp[0] = c[0] / b[0];
    dp[0] = d[0] / b[0];
    for (int i = 1; i < n; i++) {
        double m = b[i] - a[i] * cp[i - 1];
        cp[i] = i + 1 < n ? c[i] / m : 0.0;
        dp[i] = (d[i] - a[i] * dp[i - 1]) / m;
    }
    x[n - 1] = dp[n - 1];
    for (int i = n - 2; i >= 0; i--)
        x[i] = dp[i] - cp[i] * x[i + 1];
    delete[] cp;
    delete[] dp;
}

extern "C" double solve_loss(const double *a, const double *b, const double *c, const double *d, int n) {
    double *x = new double[n];
    double *acc = new double(0.0);
    thomas(a, b, c, d, x, n);
    for (int i = 0; i < n; i++)
        *acc += x[i] * x[i] * (1.0 + 0.2 * i);
    double r = *acc;
    delete acc;
    delete[] x;
    return r;
}

enum { N = 6 };
/* z = (a, b, c, d), each N */
static double flat(const double *z) {
    double a[N], b[N], c[N], d[N];
    for (int i = 0; i < N; i++) a[i] = z[i], b[i] = z[N + i], c[i] = z[2 * N + i], d[i] = z[3 * N + i];
    return solve_loss(a, b, c, d, N);
}

static double fd(double (*g)(const double *), const double *x, int n, int k) {
    double a[64], b[64], h = ZYG_STEP(x[k]);
    for (int i = 0; i < n; i++) a[i] = b[i] = x[i];
    a[k] += h;
    b[k] -= h;
    return (g(a) - g(b)) / (2 * h);
}

int main() {
    for (int q = 0; q < 2; q++) {
        double z[4 * N], a[N], b[N], c[N], d[N], da[N] = {}, db[N] = {}, dc[N] = {}, dd[N] = {};
        for (int i = 0; i < N; i++) {
            z[i] = a[i] = 0.5 * sin(1.1 * i + q);
            z[N + i] = b[i] = 2.5 + 0.3 * cos(0.7 * i - q);
            z[2 * N + i] = c[i] = 0.4 * cos(1.9 * i + q);
            z[3 * N + i] = d[i] = 1.0 + sin(2.3 * i - q);
        }
        __enzyme_autodiff((void *)solve_loss, enzyme_dup, a, da, enzyme_dup, b, db, enzyme_dup, c, dc, enzyme_dup, d, dd,
                          enzyme_const, (int)N);
        for (int k = 0; k < N; k++) {
            check_close("da", da[k], fd(flat, z, 4 * N, k), FD_RTOL, FD_ATOL);
            check_close("db", db[k], fd(flat, z, 4 * N, N + k), FD_RTOL, FD_ATOL);
            check_close("dc", dc[k], fd(flat, z, 4 * N, 2 * N + k), FD_RTOL, FD_ATOL);
            check_close("dd", dd[k], fd(flat, z, 4 * N, 3 * N + k), FD_RTOL, FD_ATOL);
        }
    }
    return zyg_report();
}
