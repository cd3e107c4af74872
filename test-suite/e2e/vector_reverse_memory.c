// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// RUN: %grad-run -O3 %s %t.native -march=native | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Vector reverse mode through memory (`enzyme_width, W` with `__enzyme_autodiff`): W
// adjoints in one sweep, each lane with its own shadows (`enzyme_dup` followed by W of them,
// or `enzyme_dupv` at a byte stride) and its own seeds in the output's shadow; the float
// result is seeded 1 in every lane. Heap work arrays made and freed inside (one shadow
// allocation per lane), a helper returning a malloc'd buffer, a struct with a pointer
// field, memcpy/memset, a noinline callee taking pointers (its width-W primal and adjoint
// get every lane's shadows), a stack array indexed at run time, and recursion over an
// array. Each lane against width-1 reverse mode and central differences.
#include <stdlib.h>
#include <string.h>
#include "zyg_check.h"

extern int enzyme_width, enzyme_dupv, enzyme_dupnoneedv;
void __enzyme_autodiff_void(void *, ...) __asm__("__enzyme_autodiff");

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

/* y = apply(layer(w), x^2 + 0.1) (plus a rotation through a stack array); returns
 * sum(y^2) + rsum(w) */
static double model(const double *x, const double *w, double *y, int n) {
    double *sq = copy_squared(x, n);
    double *wc = malloc(n * sizeof(double));
    memcpy(wc, w, n * sizeof(double));
    layer l = {wc, 0.7, n};
    double *tmp = calloc(n, sizeof(double));
    apply(&l, sq, tmp);
    volatile int shift = 2;
    double rot[N];
    for (int i = 0; i < n; i++) rot[(i + shift) % n] = tmp[i] * x[i];
    memset(y, 0, n * sizeof(double));
    double e = 0;
    for (int i = 0; i < n; i++) {
        y[i] += tmp[i] + rot[i];
        e += tmp[i] * tmp[i];
    }
    free(tmp);
    free(sq);
    free(wc);
    return e + rsum(w, n);
}

static double x0[N] = {0.3, -0.2, 0.5, 0.9, -0.4}, w0[N] = {0.2, 0.4, -0.3, 0.1, 0.6};

/* d/d(x, w) of model + <ybar, y> by central differences */
static void fd(const double *ybar, double *gx, double *gw) {
    double y[N];
    for (int k = 0; k < 2 * N; k++) {
        double h = 1e-6, xp[N], wp[N], up = 0, down = 0;
        for (int s = 0; s < 2; s++) {
            memcpy(xp, x0, sizeof xp), memcpy(wp, w0, sizeof wp);
            double step = s ? -h : h;
            if (k < N) xp[k] += step; else wp[k - N] += step;
            double v = model(xp, wp, y, N);
            for (int i = 0; i < N; i++) v += ybar[i] * y[i];
            if (s) down = v; else up = v;
        }
        (k < N ? gx : gw)[k % N] = (up - down) / (2 * h);
    }
}

int main(void) {
    double y[N];
    /* lane l seeds y's adjoint with e_l + 0.5 e_{l+1} */
    double dx[W][N] = {{0}}, dw[W][N] = {{0}}, dy[W][N] = {{0}}, seed[W][N] = {{0}};
    for (int l = 0; l < W; l++) seed[l][l] = dy[l][l] = 1, seed[l][l + 1] = dy[l][l + 1] = 0.5;
    /* separate shadows after enzyme_dup */
    __enzyme_autodiff_void((void *)model, enzyme_width, W, enzyme_dup, x0, dx[0], dx[1], dx[2], enzyme_dup, w0, dw[0], dw[1],
                           dw[2], enzyme_dupnoneed, y, dy[0], dy[1], dy[2], enzyme_const, N);
    for (int l = 0; l < W; l++) {
        double gx[N], gw[N], one_x[N] = {0}, one_w[N] = {0}, one_y[N];
        memcpy(one_y, seed[l], sizeof one_y);
        fd(seed[l], gx, gw);
        __enzyme_autodiff((void *)model, enzyme_dup, x0, one_x, enzyme_dup, w0, one_w, enzyme_dupnoneed, y, one_y, enzyme_const,
                          N);
        for (int i = 0; i < N; i++) {
            check_close("dup: dx lane = width 1", dx[l][i], one_x[i], EXACT_RTOL, EXACT_ATOL);
            check_close("dup: dw lane = width 1", dw[l][i], one_w[i], EXACT_RTOL, EXACT_ATOL);
            check_close("dup: dx lane vs FD", dx[l][i], gx[i], FD_RTOL, FD_ATOL);
            check_close("dup: dw lane vs FD", dw[l][i], gw[i], FD_RTOL, FD_ATOL);
            check_close("dup: y's adjoint is consumed", dy[l][i], 0, 0, 0);
        }
    }
    /* the same through enzyme_dupv: shadows of lane l at base + l * stride */
    double ex[W][N] = {{0}}, ew[W][N] = {{0}}, ey[W][N];
    memcpy(ey, seed, sizeof ey);
    __enzyme_autodiff_void((void *)model, enzyme_width, W, enzyme_dupv, sizeof ex[0], x0, ex, enzyme_dupv, sizeof ew[0], w0, ew,
                           enzyme_dupnoneedv, sizeof ey[0], y, ey, enzyme_const, N);
    for (int l = 0; l < W; l++)
        for (int i = 0; i < N; i++) {
            check_close("dupv: dx", ex[l][i], dx[l][i], EXACT_RTOL, EXACT_ATOL);
            check_close("dupv: dw", ew[l][i], dw[l][i], EXACT_RTOL, EXACT_ATOL);
        }
    /* a void function whose adjoints all go through memory: the Jacobian of apply's output
     * with respect to its input, N rows in one sweep of width N */
    double wv[N] = {0.2, 0.4, -0.3, 0.1, 0.6}, dwv[N][N] = {{0}};
    layer l = {wv, 0.7, N}, dl[N];
    for (int k = 0; k < N; k++) dl[k] = (layer){dwv[k], 0, N};
    double id[N][N] = {{0}}, out[N], J[N][N] = {{0}};
    for (int k = 0; k < N; k++) id[k][k] = 1;
    __enzyme_autodiff_void((void *)apply, enzyme_width, N, enzyme_dupv, sizeof dl[0], &l, dl, enzyme_dupv, sizeof J[0], x0, J,
                           enzyme_dupnoneedv, sizeof id[0], out, id);
    for (int k = 0; k < N; k++) {
        double h = 1e-6, xp[N], xm[N], op[N], om[N];
        memcpy(xp, x0, sizeof xp), memcpy(xm, x0, sizeof xm);
        xp[k] += h, xm[k] -= h;
        apply(&l, xp, op), apply(&l, xm, om);
        /* row i of J holds d out_i / d x */
        for (int i = 0; i < N; i++) check_close("Jacobian row", J[i][k], (op[i] - om[i]) / (2 * h), FD_RTOL, FD_ATOL);
    }
    /* lane k's shadow layer collected d out_k / d w */
    for (int j = 0; j < N; j++) {
        double h = 1e-6, wp[N], wm[N], op[N], om[N];
        memcpy(wp, wv, sizeof wp), memcpy(wm, wv, sizeof wm);
        wp[j] += h, wm[j] -= h;
        layer lp = {wp, 0.7, N}, lm = {wm, 0.7, N};
        apply(&lp, x0, op), apply(&lm, x0, om);
        for (int k = 0; k < N; k++) check_close("weights' row", dwv[k][j], (op[k] - om[k]) / (2 * h), FD_RTOL, FD_ATOL);
    }
    return zyg_report();
}
