/* Bundle adjustment (bench/adbench/ba.h). As ADBench measures it: the primal computes all 2p
 * reprojection errors and p weight errors; a gradient computes the Jacobian's blocks, per
 * observation the 2 x 15 block of its reprojection error (11 camera parameters, 3 point
 * coordinates, the weight) and the derivative of its weight error. zyg's gradient gets each
 * row of a block from one request (the output's shadow seeded with (1, 0), then (0, 1)), as
 * reverse-mode tools do in ADBench; the hand-written one is ba_compute_reproj_error_jac.
 *
 * The same blocks by vector forward mode (ba_fwd_zyg): one `__enzyme_fwddiff` of width 15
 * per observation, lane l seeded with the l-th column's unit vector (constant seeds,
 * `enzyme_dupv`), gives both rows of the block in one sweep.
 *
 * And by vector reverse mode (ba_rev2_zyg): one `__enzyme_autodiff` of width 2 per
 * observation, lane r seeding the output's adjoint with row r's unit vector and collecting
 * row r of the block through shadows at a stride of one row (`enzyme_dupv`).
 *
 * Also the gradient of the sum of squared residuals (ba_objective_sq) in one reverse pass,
 * against ba_objective_sq_grad. */
#include "bench.h"
#include "../adbench/ba_grad.h"

/* per observation: row 0 (15), row 1 (15), d w_err / d w */
#define BA_BLOCK (2 * BA_JAC_COLS + 1)

typedef struct {
    bench_grad g;
    int n, m, p;
    double *cams, *X, *w, *feats, *reproj, *werr;
    int *obs;
} ba_ctx;

static ba_ctx *ba_new(int n, int m, int p, uint64_t seed, int grad_len) {
    ba_ctx *c = (ba_ctx *)calloc(1, sizeof *c);
    c->n = n;
    c->m = m;
    c->p = p;
    bench_grad_init(&c->g, grad_len);
    c->cams = (double *)malloc(sizeof(double) * BA_NCAMPARAMS * n);
    c->X = (double *)malloc(sizeof(double) * 3 * m);
    c->w = (double *)malloc(sizeof(double) * p);
    c->obs = (int *)malloc(sizeof(int) * 2 * p);
    c->feats = (double *)malloc(sizeof(double) * 2 * p);
    c->reproj = (double *)malloc(sizeof(double) * 2 * p);
    c->werr = (double *)malloc(sizeof(double) * p);
    ba_generate(n, m, p, seed, c->cams, c->X, c->w, c->obs, c->feats);
    return c;
}

void *ba_setup(int n, int m, int p, uint64_t seed) { return ba_new(n, m, p, seed, BA_BLOCK * p); }

void ba_free(void *q) {
    ba_ctx *c = (ba_ctx *)q;
    bench_grad_free(&c->g);
    free(c->cams);
    free(c->X);
    free(c->w);
    free(c->obs);
    free(c->feats);
    free(c->reproj);
    free(c->werr);
    free(c);
}

double ba_primal(void *q) {
    ba_ctx *c = (ba_ctx *)q;
    ba_objective(c->n, c->m, c->p, c->cams, c->X, c->w, c->obs, c->feats, c->reproj, c->werr);
    return c->reproj[0];
}

/* The last entry of observation i's block: d w_err / d w, by one request. */
static void ba_weight_derivative(ba_ctx *c, int i, double *block) {
    double werr, dwerr = 1.0;
    block[2 * BA_JAC_COLS] = 0.0;
    ZB_AUTODIFFV((void *)ba_compute_zach_weight_error, enzyme_dup, &c->w[i], &block[2 * BA_JAC_COLS], enzyme_dup, &werr,
                 &dwerr);
}

double ba_zyg(void *q) {
    ba_ctx *c = (ba_ctx *)q;
    double *J = c->g.zyg, first = 0.0;
    for (int i = 0; i < c->p; i++) {
        const double *cam = &c->cams[c->obs[2 * i] * BA_NCAMPARAMS], *X = &c->X[3 * c->obs[2 * i + 1]];
        const double *feat = &c->feats[2 * i];
        double *block = &J[(size_t)BA_BLOCK * i];
        for (int row = 0; row < 2; row++) {
            double *r = &block[row * BA_JAC_COLS], err[2], derr[2] = {row == 0, row == 1};
            bench_zero(r, BA_JAC_COLS);
            /* the row's layout is the Jacobian's columns: camera (11), point (3), weight */
            ZB_AUTODIFFV((void *)ba_compute_reproj_error, enzyme_dup, cam, r, enzyme_dup, X, r + BA_NCAMPARAMS,
                         enzyme_dup, &c->w[i], r + BA_NCAMPARAMS + 3, enzyme_const, feat, enzyme_dup, err, derr);
            if (i == 0 && row == 0)
                first = err[0];
        }
        ba_weight_derivative(c, i, block);
    }
    return first;
}

/* Vector forward mode's seeds: lane l is the unit vector of column l (camera, point, w). */
static const double ba_seed_cam[BA_JAC_COLS][BA_NCAMPARAMS] = {
    {[0] = 1}, {[1] = 1}, {[2] = 1}, {[3] = 1}, {[4] = 1}, {[5] = 1}, {[6] = 1}, {[7] = 1}, {[8] = 1}, {[9] = 1}, {[10] = 1}};
static const double ba_seed_X[BA_JAC_COLS][3] = {[11] = {1, 0, 0}, [12] = {0, 1, 0}, [13] = {0, 0, 1}};
static const double ba_seed_w[BA_JAC_COLS] = {[14] = 1};

double ba_fwd_zyg(void *q) {
    ba_ctx *c = (ba_ctx *)q;
    double *J = c->g.zyg, first = 0.0;
    for (int i = 0; i < c->p; i++) {
        const double *cam = &c->cams[c->obs[2 * i] * BA_NCAMPARAMS], *X = &c->X[3 * c->obs[2 * i + 1]];
        double *block = &J[(size_t)BA_BLOCK * i], err[2], cols[BA_JAC_COLS][2];
        ZB_FWDDIFFV((void *)ba_compute_reproj_error, enzyme_width, BA_JAC_COLS, enzyme_dupv, sizeof ba_seed_cam[0], cam,
                    ba_seed_cam, enzyme_dupv, sizeof ba_seed_X[0], X, ba_seed_X, enzyme_dupv, sizeof ba_seed_w[0], &c->w[i],
                    ba_seed_w, enzyme_const, &c->feats[2 * i], enzyme_dupnoneedv, sizeof cols[0], err, cols);
        for (int l = 0; l < BA_JAC_COLS; l++) {
            block[l] = cols[l][0];
            block[BA_JAC_COLS + l] = cols[l][1];
        }
        ba_weight_derivative(c, i, block);
        if (i == 0)
            first = err[0];
    }
    return first;
}

/* Vector reverse mode's seeds: lane r is row r's unit vector. */
static const double ba_seed_err[2][2] = {{1, 0}, {0, 1}};

double ba_rev2_zyg(void *q) {
    ba_ctx *c = (ba_ctx *)q;
    double *J = c->g.zyg, first = 0.0;
    for (int i = 0; i < c->p; i++) {
        const double *cam = &c->cams[c->obs[2 * i] * BA_NCAMPARAMS], *X = &c->X[3 * c->obs[2 * i + 1]];
        double *block = &J[(size_t)BA_BLOCK * i], err[2], derr[2][2];
        memcpy(derr, ba_seed_err, sizeof derr);
        bench_zero(block, 2 * BA_JAC_COLS);
        /* row r's shadows are at block + r * BA_JAC_COLS: camera (11), point (3), weight */
        ZB_AUTODIFFV((void *)ba_compute_reproj_error, enzyme_width, 2, enzyme_dupv, sizeof(double) * BA_JAC_COLS, cam,
                     block, enzyme_dupv, sizeof(double) * BA_JAC_COLS, X, block + BA_NCAMPARAMS, enzyme_dupv,
                     sizeof(double) * BA_JAC_COLS, &c->w[i], block + BA_NCAMPARAMS + 3, enzyme_const, &c->feats[2 * i],
                     enzyme_dupnoneedv, sizeof derr[0], err, derr);
        ba_weight_derivative(c, i, block);
        if (i == 0)
            first = err[0];
    }
    return first;
}

double ba_hand(void *q) {
    ba_ctx *c = (ba_ctx *)q;
    double *J = c->g.hand, first = 0.0;
    for (int i = 0; i < c->p; i++) {
        const double *cam = &c->cams[c->obs[2 * i] * BA_NCAMPARAMS], *X = &c->X[3 * c->obs[2 * i + 1]];
        double *block = &J[(size_t)BA_BLOCK * i], err[2];
        ba_compute_reproj_error_jac(cam, X, &c->w[i], &c->feats[2 * i], err, block);
        block[2 * BA_JAC_COLS] = -2.0 * c->w[i];
        if (i == 0)
            first = err[0];
    }
    return first;
}

/* --- the sum of squares: gradient with respect to cams, X and w --- */

void *ba_sq_setup(int n, int m, int p, uint64_t seed) {
    return ba_new(n, m, p, seed, BA_NCAMPARAMS * n + 3 * m + p);
}

double ba_sq_primal(void *q) {
    ba_ctx *c = (ba_ctx *)q;
    return ba_objective_sq(c->n, c->m, c->p, c->cams, c->X, c->w, c->obs, c->feats);
}

double ba_sq_zyg(void *q) {
    ba_ctx *c = (ba_ctx *)q;
    double *dc = c->g.zyg, *dX = dc + BA_NCAMPARAMS * c->n, *dw = dX + 3 * c->m;
    bench_zero(c->g.zyg, (size_t)c->g.n);
    ZB_AUTODIFFV((void *)ba_objective_sq, enzyme_const, c->n, enzyme_const, c->m, enzyme_const, c->p, enzyme_dup,
                 c->cams, dc, enzyme_dup, c->X, dX, enzyme_dup, c->w, dw, enzyme_const, c->obs, enzyme_const, c->feats);
    return dc[0]; /* the request returns no value (no `out` argument) */
}

double ba_sq_hand(void *q) {
    ba_ctx *c = (ba_ctx *)q;
    double *dc = c->g.hand, *dX = dc + BA_NCAMPARAMS * c->n, *dw = dX + 3 * c->m;
    return ba_objective_sq_grad(c->n, c->m, c->p, c->cams, c->X, c->w, c->obs, c->feats, dc, dX, dw);
}
