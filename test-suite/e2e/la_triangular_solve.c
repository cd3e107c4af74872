// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Triangular solves: forward substitution L y = b and back substitution U x = y, each
// writing the solution in place over its right-hand side in a local buffer (entries read
// after they were overwritten); gradients w.r.t. L, U and b.
#include "zyg_check.h"

enum { N = 4 };

__attribute__((noinline)) static void forward_subst(const double *L, double *y, int n) {
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < i; j++)
            y[i] -= L[i * n + j] * y[j];
        y[i] /= L[i * n + i];
    }
}

__attribute__((noinline)) static void back_subst(const double *U, double *x, int n) {
    for (int i = n - 1; i >= 0; i--) {
        for (int j = i + 1; j < n; j++)
            x[i] -= U[i * n + j] * x[j];
        x[i] /= U[i * n + i];
    }
}

double solve_loss(const double *L, const double *U, const double *b) {
    double x[N];
    for (int i = 0; i < N; i++)
        x[i] = b[i];
    forward_subst(L, x, N);
    back_subst(U, x, N);
    double s = 0.0;
    for (int i = 0; i < N; i++)
        s += x[i] * x[i] * (i + 1) + x[i];
    return s;
}

static double Lg[N * N], Ug[N * N], bg[N];
static double f_L(const double *L) { return solve_loss(L, Ug, bg); }
static double f_U(const double *U) { return solve_loss(Lg, U, bg); }
static double f_b(const double *b) { return solve_loss(Lg, Ug, b); }

static double fd(double (*g)(const double *), const double *x, int n, int k) {
    double a[64], b[64], h = ZYG_STEP(x[k]);
    for (int i = 0; i < n; i++) a[i] = b[i] = x[i];
    a[k] += h;
    b[k] -= h;
    return (g(a) - g(b)) / (2 * h);
}

int main(void) {
    for (int q = 0; q < 2; q++) {
        for (int i = 0; i < N; i++)
            for (int j = 0; j < N; j++) {
                Lg[i * N + j] = j < i ? 0.3 * sin(i + 2 * j + q) : (j == i ? 1.5 + 0.2 * i : 0.0);
                Ug[i * N + j] = j > i ? 0.4 * cos(2 * i + j - q) : (j == i ? 2.0 - 0.3 * i : 0.0);
            }
        for (int i = 0; i < N; i++) bg[i] = 0.5 + sin(3.0 * i + q);
        double dL[N * N] = {0}, dU[N * N] = {0}, db[N] = {0};
        __enzyme_autodiff((void *)solve_loss, enzyme_dup, Lg, dL, enzyme_dup, Ug, dU, enzyme_dup, bg, db);
        for (int k = 0; k < N * N; k++) {
            check_close("dL", dL[k], fd(f_L, Lg, N * N, k), FD_RTOL, FD_ATOL);
            check_close("dU", dU[k], fd(f_U, Ug, N * N, k), FD_RTOL, FD_ATOL);
        }
        for (int k = 0; k < N; k++)
            check_close("db", db[k], fd(f_b, bg, N, k), FD_RTOL, FD_ATOL);
    }
    return zyg_report();
}
