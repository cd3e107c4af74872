// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// A discrete Fourier transform with C99 `double complex`: the spectrum of a real signal
// into a local array of complex values (twiddles by cexp), then a loss on the power
// spectrum |X_k|^2 = X_k conj(X_k) and on |X_k| (cabs); gradient w.r.t. the signal.
#include <complex.h>
#include "zyg_check.h"

enum { N = 6 };

double spectrum_loss(const double *x, const double *w) {
    double complex X[N];
    for (int k = 0; k < N; k++) {
        X[k] = 0;
        for (int t = 0; t < N; t++)
            X[k] += x[t] * cexp(-2.0 * I * M_PI * k * t / N);
    }
    double l = 0.0;
    for (int k = 0; k < N; k++)
        l += w[k] * creal(X[k] * conj(X[k])) + 0.1 * cabs(X[k]);
    return l;
}

static const double wg[N] = {1.0, 0.5, 2.0, 0.25, 1.5, 0.75};
static double loss_x(const double *x) { return spectrum_loss(x, wg); }

static double fd(double (*g)(const double *), const double *x, int n, int k) {
    double a[64], b[64], h = ZYG_STEP(x[k]);
    for (int i = 0; i < n; i++) a[i] = b[i] = x[i];
    a[k] += h;
    b[k] -= h;
    return (g(a) - g(b)) / (2 * h);
}

int main(void) {
    double pts[2][N] = {{0.5, -1.0, 0.3, 0.8, -0.2, 1.1}, {1.2, 0.4, -0.7, 0.1, 0.9, -0.5}};
    for (int q = 0; q < 2; q++) {
        double dx[N] = {0};
        __enzyme_autodiff((void *)spectrum_loss, enzyme_dup, pts[q], dx, enzyme_const, wg);
        for (int k = 0; k < N; k++)
            check_close("dx", dx[k], fd(loss_x, pts[q], N, k), FD_RTOL, FD_ATOL);
    }
    return zyg_report();
}
