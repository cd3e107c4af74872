// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// ADBench's bundle adjustment (bench/adbench/ba.h) on a generated problem of 3 cameras, 5
// points and 12 observations: the gradient of the sum of squared residuals with respect to
// every camera parameter, point coordinate and weight, and a vector-Jacobian product of
// ba_objective itself (its 3p residual outputs seeded through their `dup` shadows), both
// against central finite differences of every component; and the first against the
// hand-written gradient (bench/adbench/ba_grad.h), which agrees to rounding.
#include "zyg_check.h"
#include "../../bench/adbench/ba_grad.h"

void __enzyme_autodiffv(void *, ...);

enum { NC = 3, NP = 5, NO = 12, NCAM = NC * BA_NCAMPARAMS, NX = 3 * NP };
static int obs[2 * NO];
static double feats[2 * NO], seed_r[2 * NO], seed_w[NO];

/* sum of squares (what = 0) or seed . residuals (what = 1) */
static double value(const double *c, const double *x, const double *w, int what) {
    if (what == 0)
        return ba_objective_sq(NC, NP, NO, c, x, w, obs, feats);
    double r[2 * NO], e[NO], s = 0;
    ba_objective(NC, NP, NO, c, x, w, obs, feats, r, e);
    for (int i = 0; i < 2 * NO; i++) s += seed_r[i] * r[i];
    for (int i = 0; i < NO; i++) s += seed_w[i] * e[i];
    return s;
}

/* central difference in component i of array `which` (0 cams, 1 points, 2 weights) */
static double fd(const double *c, const double *x, const double *w, int which, int i, int what) {
    double cc[NCAM], cx[NX], cw[NO];
    for (int j = 0; j < NCAM; j++) cc[j] = c[j];
    for (int j = 0; j < NX; j++) cx[j] = x[j];
    for (int j = 0; j < NO; j++) cw[j] = w[j];
    double *p = which == 0 ? cc : which == 1 ? cx : cw;
    double v = p[i], h = ZYG_STEP(v);
    p[i] = v + h;
    double hi = value(cc, cx, cw, what);
    p[i] = v - h;
    double lo = value(cc, cx, cw, what);
    return (hi - lo) / (2 * h);
}

static void check_all(const char *what_label, const double *c, const double *x, const double *w,
                      const double *dc, const double *dx, const double *dw, int what) {
    char label[64];
    for (int i = 0; i < NCAM; i++) {
        snprintf(label, sizeof label, "%s dcams[%d]", what_label, i);
        check_close(label, dc[i], fd(c, x, w, 0, i, what), FD_RTOL, FD_ATOL);
    }
    for (int i = 0; i < NX; i++) {
        snprintf(label, sizeof label, "%s dX[%d]", what_label, i);
        check_close(label, dx[i], fd(c, x, w, 1, i, what), FD_RTOL, FD_ATOL);
    }
    for (int i = 0; i < NO; i++) {
        snprintf(label, sizeof label, "%s dw[%d]", what_label, i);
        check_close(label, dw[i], fd(c, x, w, 2, i, what), FD_RTOL, FD_ATOL);
    }
}

int main(void) {
    double cams[NCAM], X[NX], w[NO];
    ba_generate(NC, NP, NO, 7, cams, X, w, obs, feats);

    /* the scalar: sum of squared residuals */
    double dc[NCAM] = {0}, dx[NX] = {0}, dw[NO] = {0};
    double f = __enzyme_autodiff((void *)ba_objective_sq, enzyme_const, NC, enzyme_const, NP, enzyme_const, NO,
                                 enzyme_dup, cams, dc, enzyme_dup, X, dx, enzyme_dup, w, dw,
                                 enzyme_const, obs, enzyme_const, feats);
    (void)f;
    check_all("sq", cams, X, w, dc, dx, dw, 0);
    double mc[NCAM], mx[NX], mw[NO];
    ba_objective_sq_grad(NC, NP, NO, cams, X, w, obs, feats, mc, mx, mw);
    for (int i = 0; i < NCAM; i++) check_close("sq dcams vs manual", dc[i], mc[i], 1e-10, 1e-12);
    for (int i = 0; i < NX; i++) check_close("sq dX vs manual", dx[i], mx[i], 1e-10, 1e-12);
    for (int i = 0; i < NO; i++) check_close("sq dw vs manual", dw[i], mw[i], 1e-10, 1e-12);

    /* a vector-Jacobian product of the residual vector */
    adb_rng r = adb_rng_new(99);
    double dr[2 * NO], de[NO], res[2 * NO], werr[NO];
    for (int i = 0; i < 2 * NO; i++) dr[i] = seed_r[i] = adb_rng_uniform(&r, -1, 1);
    for (int i = 0; i < NO; i++) de[i] = seed_w[i] = adb_rng_uniform(&r, -1, 1);
    double dc2[NCAM] = {0}, dx2[NX] = {0}, dw2[NO] = {0};
    __enzyme_autodiffv((void *)ba_objective, enzyme_const, NC, enzyme_const, NP, enzyme_const, NO,
                       enzyme_dup, cams, dc2, enzyme_dup, X, dx2, enzyme_dup, w, dw2,
                       enzyme_const, obs, enzyme_const, feats, enzyme_dup, res, dr, enzyme_dup, werr, de);
    double res_want[2 * NO], werr_want[NO];
    ba_objective(NC, NP, NO, cams, X, w, obs, feats, res_want, werr_want);
    for (int i = 0; i < 2 * NO; i++) {
        check_close("reproj_err = primal", res[i], res_want[i], 1e-14, 1e-14);
        check_close("dreproj_err consumed", dr[i], 0, 0, 0);
    }
    for (int i = 0; i < NO; i++) {
        check_close("w_err = primal", werr[i], werr_want[i], 1e-14, 1e-14);
        check_close("dw_err consumed", de[i], 0, 0, 0);
    }
    check_all("vjp", cams, X, w, dc2, dx2, dw2, 1);
    return zyg_report();
}
