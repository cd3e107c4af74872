// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// RUN: %grad-run -O3 %s %t.native -march=native | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Forward mode of functions returning void whose only outputs are memory: a polar to
// Cartesian transform writing two `dup` scalars, a softmax written into an output array,
// a cumulative sum overwriting its input, and a function writing several outputs of which
// one is `enzyme_dupnoneed`. The request is made both as `double` (result ignored) and
// through a `void` function pointer type. Tangents against central differences.
#include <string.h>
#include "zyg_check.h"

typedef void (*void_fwd)(void *, ...);

static void polar(double r, double th, double *x, double *y) {
    *x = r * cos(th);
    *y = r * sin(th);
}

static void softmax(const double *z, double *p, int n) {
    double m = z[0];
    for (int i = 1; i < n; i++) m = z[i] > m ? z[i] : m;
    double s = 0;
    for (int i = 0; i < n; i++) {
        p[i] = exp(z[i] - m);
        s += p[i];
    }
    for (int i = 0; i < n; i++) p[i] /= s;
}

static void cumsum(double *v, int n) {
    for (int i = 1; i < n; i++) v[i] += v[i - 1] * 0.9;
}

static void moments(const double *v, int n, double *mean, double *var, double *skewish) {
    double m = 0;
    for (int i = 0; i < n; i++) m += v[i];
    m /= n;
    double s2 = 0, s3 = 0;
    for (int i = 0; i < n; i++) {
        double d = v[i] - m;
        s2 += d * d;
        s3 += d * d * d;
    }
    *mean = m;
    *var = s2 / n;
    *skewish = s3 / (n * (*var) + 1.0);
}

#define N 5

int main(void) {
    double h = 1e-6;
    double pts[3][2] = {{1.5, 0.3}, {0.7, 2.2}, {2.4, -1.1}};
    for (int p = 0; p < 3; p++) {
        double r = pts[p][0], th = pts[p][1], dr = 0.3 + 0.2 * p, dth = 1.0 - 0.6 * p;
        double x, y, dx = 0, dy = 0, xp, yp, xm, ym;
        __enzyme_fwddiff((void *)polar, r, dr, th, dth, enzyme_dup, &x, &dx, enzyme_dup, &y, &dy);
        polar(r + h * dr, th + h * dth, &xp, &yp);
        polar(r - h * dr, th - h * dth, &xm, &ym);
        check_close("polar x", dx, (xp - xm) / (2 * h), FD_RTOL, FD_ATOL);
        check_close("polar y", dy, (yp - ym) / (2 * h), FD_RTOL, FD_ATOL);
        check_close("polar x primal", x, r * cos(th), EXACT_RTOL, EXACT_ATOL);
    }
    double zs[2][N] = {{0.3, -1.2, 0.8, 2.1, -0.4}, {1.0, 0.9, -0.5, 0.2, 1.7}};
    double dirs[2][N] = {{0, 1, 0, 0, 0}, {0.5, -0.3, 0.8, 0.1, -0.6}};
    for (int p = 0; p < 2; p++)
        for (int d = 0; d < 2; d++) {
            double z[N], dz[N], zp[N], zm[N], pr[N], dpr[N], pp[N], pm[N];
            memcpy(z, zs[p], sizeof z);
            memcpy(dz, dirs[d], sizeof dz);
            for (int i = 0; i < N; i++) zp[i] = z[i] + h * dz[i], zm[i] = z[i] - h * dz[i];
            ((void_fwd)__enzyme_fwddiff)((void *)softmax, enzyme_dup, z, dz, enzyme_dupnoneed, pr, dpr, enzyme_const, N);
            softmax(zp, pp, N);
            softmax(zm, pm, N);
            double total = 0;
            for (int i = 0; i < N; i++) {
                check_close("softmax", dpr[i], (pp[i] - pm[i]) / (2 * h), FD_RTOL, FD_ATOL);
                total += dpr[i];
            }
            check_close("softmax tangents sum to 0", total, 0, 0, 1e-14);

            double v[N], dv[N];
            memcpy(v, z, sizeof v);
            memcpy(dv, dz, sizeof dv);
            __enzyme_fwddiff((void *)cumsum, enzyme_dup, v, dv, enzyme_const, N);
            cumsum(zp, N);
            cumsum(zm, N);
            for (int i = 0; i < N; i++) check_close("cumsum in place", dv[i], (zp[i] - zm[i]) / (2 * h), FD_RTOL, FD_ATOL);

            double mean, var, sk, dmean = 0, dvar = 0, dsk = 0, mp[3], mm[3];
            memcpy(v, z, sizeof v);
            memcpy(dv, dz, sizeof dv);
            for (int i = 0; i < N; i++) zp[i] = z[i] + h * dz[i], zm[i] = z[i] - h * dz[i];
            __enzyme_fwddiff((void *)moments, enzyme_dup, v, dv, enzyme_const, N, enzyme_dup, &mean, &dmean,
                             enzyme_dupnoneed, &var, &dvar, enzyme_dup, &sk, &dsk);
            moments(zp, N, &mp[0], &mp[1], &mp[2]);
            moments(zm, N, &mm[0], &mm[1], &mm[2]);
            check_close("moments mean", dmean, (mp[0] - mm[0]) / (2 * h), FD_RTOL, FD_ATOL);
            check_close("moments var (dupnoneed)", dvar, (mp[1] - mm[1]) / (2 * h), FD_RTOL, FD_ATOL);
            check_close("moments skew", dsk, (mp[2] - mm[2]) / (2 * h), FD_RTOL, FD_ATOL);
        }
    return zyg_report();
}
