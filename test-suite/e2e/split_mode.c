// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Split mode (Enzyme's __enzyme_augmentfwd / __enzyme_reverse): the forward half runs the
// primal and returns an opaque tape (and the result); the reverse half, called later with the
// result's adjoint and that tape, accumulates the gradients and frees the tape. Two tapes
// live at once here, consumed in the opposite order.
#include <stdlib.h>
#include "zyg_check.h"

typedef struct { void *tape; double result; } aug_t;
aug_t __enzyme_augmentfwd(void *, ...);
void *__enzyme_augmentfwd_void(void *, ...);
void __enzyme_reverse(void *, ...);
zyg_grad2 __enzyme_reverse2(void *, ...);

// Data-dependent branches and a loop: the tape holds the path and the loaded values.
double path(const double *x, int n) {
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        if (x[i] > 0.0)
            s += sin(x[i]) * s + x[i];
        else
            s = s * x[i] - exp(x[i]);
    }
    return s;
}

double pair(double a, double b) { return a * exp(b) + log(1.0 + a * a) * b; }

// No result: y is written, its shadow is the seed.
void affine(const double *x, double *y, int n) {
    for (int i = 0; i < n; i++)
        y[i] = tanh(x[i]) * (i + 1) + x[(i + 1) % n] * x[i];
}

static double fd_path(const double *x, int n, int k) {
    double a[8], b[8], h = 1e-6;
    for (int i = 0; i < n; i++) a[i] = b[i] = x[i];
    a[k] += h;
    b[k] -= h;
    return (path(a, n) - path(b, n)) / (2 * h);
}

int main(void) {
    enum { N = 6 };
    double x1[N] = {0.4, -0.7, 1.1, 0.2, -1.5, 0.9}, dx1[N] = {0};
    double x2[N] = {-0.3, 0.8, -0.2, 1.4, 0.6, -0.9}, dx2[N] = {0};
    aug_t t1 = __enzyme_augmentfwd((void *)path, enzyme_dup, x1, dx1, enzyme_const, N);
    aug_t t2 = __enzyme_augmentfwd((void *)path, enzyme_dup, x2, dx2, enzyme_const, N);
    check_close("forward result 1", t1.result, path(x1, N), EXACT_RTOL, EXACT_ATOL);
    check_close("forward result 2", t2.result, path(x2, N), EXACT_RTOL, EXACT_ATOL);
    // Later, in the other order, with seeds other than 1.
    __enzyme_reverse((void *)path, enzyme_dup, x2, dx2, enzyme_const, N, -0.5, t2.tape);
    __enzyme_reverse((void *)path, enzyme_dup, x1, dx1, enzyme_const, N, 2.5, t1.tape);
    for (int k = 0; k < N; k++) {
        check_close("dpath/dx1", dx1[k], 2.5 * fd_path(x1, N, k), FD_RTOL, FD_ATOL);
        check_close("dpath/dx2", dx2[k], -0.5 * fd_path(x2, N, k), FD_RTOL, FD_ATOL);
    }

    double pts[3][2] = {{0.5, 0.3}, {-1.2, 0.7}, {2.0, -0.4}};
    for (int p = 0; p < 3; p++) {
        double a = pts[p][0], b = pts[p][1];
        aug_t t = __enzyme_augmentfwd((void *)pair, a, b);
        check_close("pair result", t.result, pair(a, b), EXACT_RTOL, EXACT_ATOL);
        zyg_grad2 g = __enzyme_reverse2((void *)pair, a, b, 1.0, t.tape);
        CHECK_FD2(pair, a, b, g);
    }

    double x[4] = {0.3, -0.6, 1.2, 0.1}, dx[4] = {0}, y[4], dy[4] = {0};
    void *tape = __enzyme_augmentfwd_void((void *)affine, x, dx, y, dy, enzyme_const, 4);
    double want_y[4];
    affine(x, want_y, 4);
    for (int i = 0; i < 4; i++) {
        check_close("y", y[i], want_y[i], EXACT_RTOL, EXACT_ATOL);
        dy[i] = 1.0 + i;  // the seed, set between the halves
    }
    __enzyme_reverse((void *)affine, x, dx, y, dy, enzyme_const, 4, tape);
    for (int k = 0; k < 4; k++) {
        double a[4], b[4], ya[4], yb[4], h = 1e-6, want = 0.0;
        for (int i = 0; i < 4; i++) a[i] = b[i] = x[i];
        a[k] += h;
        b[k] -= h;
        affine(a, ya, 4);
        affine(b, yb, 4);
        for (int i = 0; i < 4; i++) want += (1.0 + i) * (ya[i] - yb[i]) / (2 * h);
        check_close("daffine/dx", dx[k], want, FD_RTOL, FD_ATOL);
        check_close("dy consumed", dy[k], 0.0, EXACT_RTOL, EXACT_ATOL);
    }
    return zyg_report();
}
