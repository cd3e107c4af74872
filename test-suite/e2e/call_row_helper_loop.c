// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// A helper called in a loop on successive rows of a matrix (a pointer offset into the dup
// array per call) and writing one entry of a local output per call; the helper's own
// loop carries a tape per call, kept in the caller's loop.
#include "zyg_check.h"

enum { R = 4, C = 5 };

__attribute__((noinline)) static double row_energy(const double *row, const double *w, int n, double *peak) {
    double e = 0.0, p = row[0];
    for (int j = 0; j < n; j++) {
        e += w[j] * row[j] * row[j];
        p = fmax(p, row[j]);
    }
    *peak = p;
    return log(1.0 + e);
}

double energy(const double *M, const double *w) {
    double peaks[R], s = 0.0;
    for (int i = 0; i < R; i++)
        s += row_energy(M + i * C, w, C, &peaks[i]) * (i + 1);
    for (int i = 0; i < R; i++)
        s += peaks[i] * peaks[i];
    return s;
}

/* z = (M[R*C], w[C]) */
static double energy_flat(const double *z) {
    double M[R * C], w[C];
    for (int i = 0; i < R * C; i++) M[i] = z[i];
    for (int i = 0; i < C; i++) w[i] = z[R * C + i];
    return energy(M, w);
}

static double fd(double (*g)(const double *), const double *x, int n, int k) {
    double a[64], b[64], h = ZYG_STEP(x[k]);
    for (int i = 0; i < n; i++) a[i] = b[i] = x[i];
    a[k] += h;
    b[k] -= h;
    return (g(a) - g(b)) / (2 * h);
}

int main(void) {
    for (int q = 0; q < 2; q++) {
        double z[R * C + C], M[R * C], w[C], dM[R * C] = {0}, dw[C] = {0};
        for (int i = 0; i < R * C + C; i++) z[i] = sin(2.3 * i + 0.7 * q) + (i >= R * C ? 1.2 : 0.0);
        for (int i = 0; i < R * C; i++) M[i] = z[i];
        for (int i = 0; i < C; i++) w[i] = z[R * C + i];
        __enzyme_autodiff((void *)energy, enzyme_dup, M, dM, enzyme_dup, w, dw);
        for (int k = 0; k < R * C; k++)
            check_close("dM", dM[k], fd(energy_flat, z, R * C + C, k), FD_RTOL, FD_ATOL);
        for (int k = 0; k < C; k++)
            check_close("dw", dw[k], fd(energy_flat, z, R * C + C, R * C + k), FD_RTOL, FD_ATOL);
    }
    return zyg_report();
}
