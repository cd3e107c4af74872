// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// RUN: %grad-run -O3 %s %t.native -march=native | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Vector forward mode through memory: `enzyme_dup` followed by N shadows, `enzyme_dupv`
// (N shadows at a byte stride from one base), outputs written through `dup` pointers,
// heap work arrays made and freed inside (one shadow allocation per lane), a helper that
// returns a malloc'd buffer, structs with pointer fields, memcpy/memset, a noinline callee
// taking pointers (its width-N tangent function gets every lane's shadows), and recursion
// over an array. Each lane against width-1 forward mode (exactly) and central differences.
#include <stdlib.h>
#include <string.h>
#include "zyg_check.h"

extern int enzyme_width, enzyme_dupv, enzyme_dupnoneedv;
void __enzyme_fwddiff_void(void *, ...) __asm__("__enzyme_fwddiff");
typedef struct { double d[3]; } t3;
t3 __enzyme_fwddiff3(void *, ...) __asm__("__enzyme_fwddiff");

#define N 5
#define W 3

typedef struct {
    double *w;
    double scale;
    int n;
} layer;

__attribute__((noinline)) static void apply(const layer *l, const double *in, double *out) {
    for (int i = 0; i < l->n; i++) {
        double s = 0;
        for (int j = 0; j < l->n; j++) s += l->w[(i + j) % l->n] * in[j];
        out[i] = tanh(l->scale * s);
    }
}

static double *copy_squared(const double *x, int n) {
    double *r = malloc(n * sizeof(double));
    for (int i = 0; i < n; i++) r[i] = x[i] * x[i] + 0.1;
    return r;
}

static double rsum(const double *x, int n) { return n == 0 ? 0.0 : x[0] * sin(x[0]) + rsum(x + 1, n - 1); }

/* y = apply(layer(w), x^2 + 0.1); returns sum(y^2) + rsum(w) */
static double model(const double *x, const double *w, double *y, int n) {
    double *sq = copy_squared(x, n);
    double *wc = malloc(n * sizeof(double));
    memcpy(wc, w, n * sizeof(double));
    layer l = {wc, 0.7, n};
    double *tmp = calloc(n, sizeof(double));
    apply(&l, sq, tmp);
    memset(y, 0, n * sizeof(double));
    double e = 0;
    for (int i = 0; i < n; i++) {
        y[i] += tmp[i];
        e += tmp[i] * tmp[i];
    }
    free(tmp);
    free(sq);
    free(wc);
    return e + rsum(w, n);
}

static double x0[N] = {0.3, -0.2, 0.5, 0.9, -0.4}, w0[N] = {0.2, 0.4, -0.3, 0.1, 0.6};

/* model along direction (dx, dw): (value's tangent, y's tangent) by central differences */
static double fd(const double *dx, const double *dw, double *dy) {
    double h = 1e-6, xp[N], xm[N], wp[N], wm[N], yp[N], ym[N];
    for (int i = 0; i < N; i++) {
        xp[i] = x0[i] + h * dx[i], xm[i] = x0[i] - h * dx[i];
        wp[i] = w0[i] + h * dw[i], wm[i] = w0[i] - h * dw[i];
    }
    double d = (model(xp, wp, yp, N) - model(xm, wm, ym, N)) / (2 * h);
    for (int i = 0; i < N; i++) dy[i] = (yp[i] - ym[i]) / (2 * h);
    return d;
}

int main(void) {
    double y[N];
    /* lane l: x along e_l + 0.1 e_{l+1}, w along 0.5 e_{N-1-l} */
    double dx[W][N] = {{0}}, dw[W][N] = {{0}}, dy[W][N];
    for (int l = 0; l < W; l++) {
        dx[l][l] = 1, dx[l][l + 1] = 0.1;
        dw[l][N - 1 - l] = 0.5;
    }
    /* separate shadows after enzyme_dup */
    t3 t = __enzyme_fwddiff3((void *)model, enzyme_width, W, enzyme_dup, x0, dx[0], dx[1], dx[2], enzyme_dup, w0, dw[0],
                             dw[1], dw[2], enzyme_dup, y, dy[0], dy[1], dy[2], enzyme_const, N);
    for (int l = 0; l < W; l++) {
        double want_dy[N], one_dy[N];
        double want = fd(dx[l], dw[l], want_dy);
        double one = __enzyme_fwddiff((void *)model, enzyme_dup, x0, dx[l], enzyme_dup, w0, dw[l], enzyme_dup, y, one_dy,
                                      enzyme_const, N);
        check_close("dup: lane = width 1", t.d[l], one, EXACT_RTOL, EXACT_ATOL);
        check_close("dup: lane vs FD", t.d[l], want, FD_RTOL, FD_ATOL);
        for (int i = 0; i < N; i++) {
            check_close("dup: dy lane = width 1", dy[l][i], one_dy[i], EXACT_RTOL, EXACT_ATOL);
            check_close("dup: dy lane vs FD", dy[l][i], want_dy[i], FD_RTOL, FD_ATOL);
        }
    }
    /* the same through enzyme_dupv: shadows of lane l at base + l * stride */
    double dy2[W][N];
    t3 u = __enzyme_fwddiff3((void *)model, enzyme_width, W, enzyme_dupv, sizeof dx[0], x0, dx, enzyme_dupv, sizeof dw[0], w0,
                             dw, enzyme_dupnoneedv, sizeof dy2[0], y, dy2, enzyme_const, N);
    for (int l = 0; l < W; l++) {
        check_close("dupv: lane = dup lane", u.d[l], t.d[l], EXACT_RTOL, EXACT_ATOL);
        for (int i = 0; i < N; i++) check_close("dupv: dy", dy2[l][i], dy[l][i], EXACT_RTOL, EXACT_ATOL);
    }
    /* a void function whose tangents all go through memory: the Jacobian of apply's
     * output with respect to its input, N columns in one sweep of width N */
    double wv[N] = {0.2, 0.4, -0.3, 0.1, 0.6}, dwv[N][N] = {{0}};
    layer l = {wv, 0.7, N}, dl[N];
    for (int k = 0; k < N; k++) dl[k] = (layer){dwv[k], 0, N};
    double id[N][N] = {{0}}, out[N], J[N][N];
    for (int k = 0; k < N; k++) id[k][k] = 1;
    __enzyme_fwddiff_void((void *)apply, enzyme_width, N, enzyme_dupv, sizeof dl[0], &l, dl, enzyme_dupv, sizeof id[0], x0,
                          id, enzyme_dupnoneedv, sizeof J[0], out, J);
    for (int k = 0; k < N; k++) {
        double h = 1e-6, xp[N], xm[N], op[N], om[N];
        memcpy(xp, x0, sizeof xp), memcpy(xm, x0, sizeof xm);
        xp[k] += h, xm[k] -= h;
        apply(&l, xp, op), apply(&l, xm, om);
        for (int i = 0; i < N; i++) check_close("Jacobian column", J[k][i], (op[i] - om[i]) / (2 * h), FD_RTOL, FD_ATOL);
    }
    return zyg_report();
}
