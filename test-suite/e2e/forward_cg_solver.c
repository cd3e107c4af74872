// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Forward mode through an iterative solver with a data-dependent exit: conjugate gradients
// on a symmetric positive definite tridiagonal-plus-diagonal system A(k) x = b, run until
// the residual norm drops below a tolerance (a while loop), stack work arrays, a
// matrix-free product helper. The tangent of the solution along (db, dk) against central
// differences, and against the exact sensitivity dx = A^{-1}(db - dA x) solved by CG.
#include <string.h>
#include "zyg_check.h"

#define N 10

/* y = A(k) v with A = tridiag(-1, 2 + k d_i, -1) */
static void apply(const double *v, double *y, double k) {
    for (int i = 0; i < N; i++) {
        double s = (2.0 + k * (1.0 + 0.1 * i)) * v[i];
        if (i > 0) s -= v[i - 1];
        if (i + 1 < N) s -= v[i + 1];
        y[i] = s;
    }
}

static double dotn(const double *a, const double *b) {
    double s = 0;
    for (int i = 0; i < N; i++) s += a[i] * b[i];
    return s;
}

/* solves A(k) x = b; returns b . x */
static double cg(const double *b, double *x, double k) {
    double r[N], p[N], Ap[N];
    for (int i = 0; i < N; i++) x[i] = 0, r[i] = b[i], p[i] = b[i];
    double rr = dotn(r, r);
    int it = 0;
    while (sqrt(rr) > 1e-14 && it < 200) {
        apply(p, Ap, k);
        double alpha = rr / dotn(p, Ap);
        for (int i = 0; i < N; i++) x[i] += alpha * p[i], r[i] -= alpha * Ap[i];
        double rr_new = dotn(r, r);
        double beta = rr_new / rr;
        for (int i = 0; i < N; i++) p[i] = r[i] + beta * p[i];
        rr = rr_new;
        it++;
    }
    return dotn(b, x);
}

int main(void) {
    double h = 1e-6;
    for (int q = 0; q < 3; q++) {
        double b[N], db[N], x[N], dx[N], bp[N], bm[N], xp[N], xm[N];
        for (int i = 0; i < N; i++) {
            b[i] = sin(0.9 * i + q) + 0.5;
            db[i] = q == 0 ? (i == 4) : 0.3 * cos(1.7 * i);
            bp[i] = b[i] + h * db[i], bm[i] = b[i] - h * db[i];
        }
        double k = 0.3 + 0.4 * q, dk = q == 1 ? 0.0 : 0.5;
        memset(dx, 0, sizeof dx);
        double t = __enzyme_fwddiff((void *)cg, enzyme_dup, b, db, enzyme_dup, x, dx, k, dk);
        double fp = cg(bp, xp, k + h * dk), fm = cg(bm, xm, k - h * dk);
        check_close("b . x", t, (fp - fm) / (2 * h), FD_RTOL, FD_ATOL);
        for (int i = 0; i < N; i++) check_close("dx against differences", dx[i], (xp[i] - xm[i]) / (2 * h), FD_RTOL, FD_ATOL);
        /* exact sensitivity: A dx = db - dA x, dA = dk diag(1 + 0.1 i) */
        double rhs[N], sens[N];
        for (int i = 0; i < N; i++) rhs[i] = db[i] - dk * (1.0 + 0.1 * i) * x[i];
        cg(rhs, sens, k);
        for (int i = 0; i < N; i++) check_close("dx against A^-1 (db - dA x)", dx[i], sens[i], 1e-9, 1e-11);
    }
    return zyg_report();
}
