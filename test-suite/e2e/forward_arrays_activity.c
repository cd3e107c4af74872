// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// RUN: %grad-run -O3 %s %t.native -march=native | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Forward mode with arrays of every activity: an input array `enzyme_dup` (its tangent
// read from the shadow), an output array `enzyme_dup` (tangents written to the shadow), an
// output `enzyme_dupnoneed` (only its tangent is wanted), an `enzyme_const` coefficient
// array and `enzyme_const` integers, an array both read and updated in place. Each output
// tangent is checked against central differences along the same input direction.
#include <string.h>
#include "zyg_check.h"

#define N 7

/* y[i] = sum_j w[j] * x[(i + j) % n]^2 + s * x[i]; returns sum of y * x */
static double convolve(const double *x, const double *w, int m, double *y, double s, int n) {
    double dot = 0;
    for (int i = 0; i < n; i++) {
        double acc = 0;
        for (int j = 0; j < m; j++) {
            double v = x[(i + j) % n];
            acc += w[j] * v * v;
        }
        y[i] = acc + s * x[i];
        dot += y[i] * x[i];
    }
    return dot;
}

/* In place: a[i] = a[i] * a[i-1] + log(1 + a[i]^2), prefix style; returns nothing */
static void prefix_inplace(double *a, int n) {
    for (int i = 1; i < n; i++) a[i] = a[i] * tanh(a[i - 1]) + log(1.0 + a[i] * a[i]);
}

/* out = normalised x (x / |x|), written only */
static void normalise(const double *x, double *out, int n) {
    double ss = 0;
    for (int i = 0; i < n; i++) ss += x[i] * x[i];
    double inv = 1.0 / sqrt(ss);
    for (int i = 0; i < n; i++) out[i] = x[i] * inv;
}

int main(void) {
    double base[3][N] = {{0.3, -0.5, 0.8, 1.1, -0.2, 0.6, 0.9},
                         {1.4, 0.2, -0.7, 0.5, 0.35, -1.2, 0.15},
                         {-0.9, 0.75, 0.4, -0.3, 1.05, 0.55, -0.45}};
    double dirs[2][N] = {{1, 0, 0, 0, 0, 0, 0}, {0.2, -0.4, 0.6, 0.1, 0.3, -0.5, 0.8}};
    double w[4] = {0.5, -0.25, 1.5, 0.125};
    double h = 1e-6;
    for (int p = 0; p < 3; p++) {
        for (int d = 0; d < 2; d++) {
            const double *x = base[p], *dx = dirs[d];
            double xp[N], xm[N];
            for (int i = 0; i < N; i++) xp[i] = x[i] + h * dx[i], xm[i] = x[i] - h * dx[i];

            /* convolve: x dup, w const, y dup, s active (tangent ds), ints const */
            double xin[N], dxin[N], y[N], dy[N], yp[N], ym[N], ds = d ? -0.7 : 0.0;
            memcpy(xin, x, sizeof xin);
            memcpy(dxin, dx, sizeof dxin);
            memset(dy, 0, sizeof dy);
            double t = __enzyme_fwddiff((void *)convolve, enzyme_dup, xin, dxin, enzyme_const, w, enzyme_const, 4,
                                        enzyme_dup, y, dy, 0.8, ds, enzyme_const, N);
            double rp = convolve(xp, w, 4, yp, 0.8 + h * ds, N), rm = convolve(xm, w, 4, ym, 0.8 - h * ds, N);
            check_close("convolve result", t, (rp - rm) / (2 * h), FD_RTOL, FD_ATOL);
            for (int i = 0; i < N; i++) check_close("convolve y", dy[i], (yp[i] - ym[i]) / (2 * h), FD_RTOL, FD_ATOL);
            double yref[N];
            convolve(x, w, 4, yref, 0.8, N);
            for (int i = 0; i < N; i++) check_close("convolve y primal", y[i], yref[i], EXACT_RTOL, EXACT_ATOL);

            /* prefix_inplace: one dup array, read and written */
            double a[N], da[N], ap[N], am[N];
            memcpy(a, x, sizeof a);
            memcpy(da, dx, sizeof da);
            memcpy(ap, xp, sizeof ap);
            memcpy(am, xm, sizeof am);
            __enzyme_fwddiff((void *)prefix_inplace, enzyme_dup, a, da, enzyme_const, N);
            prefix_inplace(ap, N);
            prefix_inplace(am, N);
            for (int i = 0; i < N; i++) check_close("prefix in place", da[i], (ap[i] - am[i]) / (2 * h), FD_RTOL, FD_ATOL);
            /* and the primal was updated too */
            double ref[N];
            memcpy(ref, x, sizeof ref);
            prefix_inplace(ref, N);
            for (int i = 0; i < N; i++) check_close("prefix primal", a[i], ref[i], EXACT_RTOL, EXACT_ATOL);

            /* normalise: out dupnoneed */
            double out[N], dout[N], op[N], om[N];
            memset(dout, 0, sizeof dout);
            __enzyme_fwddiff((void *)normalise, enzyme_dup, xin, dxin, enzyme_dupnoneed, out, dout, enzyme_const, N);
            normalise(xp, op, N);
            normalise(xm, om, N);
            for (int i = 0; i < N; i++) check_close("normalise (dupnoneed)", dout[i], (op[i] - om[i]) / (2 * h), FD_RTOL, FD_ATOL);
        }
    }
    return zyg_report();
}
