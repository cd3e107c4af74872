/* Hessian-vector products (the `modes` family's HVP cases): Hv = d/de grad f(x + e v) by
 * forward mode over zyg's gradient, an `__enzyme_fwddiff` request of a function that makes an
 * `__enzyme_autodiff` request, on logsumexp, the 2-layer MLP's loss (scalar.h) and ADBench's
 * GMM objective. Four variants per case:
 *
 * - primal:   f(x)
 * - gradient: zyg's gradient of f (HVP / gradient is the ratio the issue sets a target for)
 * - zyg:      zyg's Hessian-vector product
 * - hand:     central differences of the hand-written gradient along v,
 *             (grad f(x + h v) - grad f(x - h v)) / 2h: two gradients, and the reference the
 *             HVP is checked against (to the differences' error, src/lib.rs: HVP_CHECK_RTOL)
 *
 * At -O1 and above zyg refuses forward mode over a gradient that keeps a looping helper as a
 * call (the gradient copies the helper's tape as a struct value; README, "Higher-order
 * derivatives"), so every ADBench helper is inlined here (ADB_FN); the MLP and logsumexp are
 * single functions already. */
#define ADB_FN static inline __attribute__((always_inline, unused))
#include "bench.h"
#include "scalar.h"
#include "../adbench/gmm_grad.h"

/* The head of every HVP case's context. */
typedef struct hvp_ctx hvp_ctx;
/* g = the hand-written gradient of the case's objective at x (x has the parameters' layout) */
typedef void (*hand_gradient_fn)(hvp_ctx *c, const double *x, double *g);

struct hvp_ctx {
    bench_grad g;     /* zyg: zyg's HVP; hand: the central differences */
    int np;           /* parameters */
    double *x, *v;    /* the point and the direction */
    double *grad;     /* zyg's gradient (the gradient variant; the HVP's gradient) */
    double *xs, *gp, *gm; /* the differences' scratch */
    hand_gradient_fn hand_gradient;
};

static void hvp_init(hvp_ctx *c, int np, hand_gradient_fn hand_gradient) {
    c->np = np;
    bench_grad_init(&c->g, np);
    c->x = (double *)malloc(sizeof(double) * np);
    c->v = (double *)malloc(sizeof(double) * np);
    for (int i = 0; i < np; i++)
        c->v[i] = sin(0.7 * i + 0.3); /* as modes.c's directions */
    c->grad = (double *)calloc(np, sizeof(double));
    c->xs = (double *)malloc(sizeof(double) * np);
    c->gp = (double *)malloc(sizeof(double) * np);
    c->gm = (double *)malloc(sizeof(double) * np);
    c->hand_gradient = hand_gradient;
}

static void hvp_release(hvp_ctx *c) {
    bench_grad_free(&c->g);
    free(c->x);
    free(c->v);
    free(c->grad);
    free(c->xs);
    free(c->gp);
    free(c->gm);
}

/* The step of the differences: their truncation error (h^2) and rounding error (1/h) balance
 * near the cube root of the machine epsilon, for x and v of size 1. */
#define HVP_STEP 1e-5

/* hand = (grad f(x + h v) - grad f(x - h v)) / 2h */
static double hvp_differences(hvp_ctx *c) {
    int np = c->np;
    for (int i = 0; i < np; i++)
        c->xs[i] = c->x[i] + HVP_STEP * c->v[i];
    c->hand_gradient(c, c->xs, c->gp);
    for (int i = 0; i < np; i++)
        c->xs[i] = c->x[i] - HVP_STEP * c->v[i];
    c->hand_gradient(c, c->xs, c->gm);
    for (int i = 0; i < np; i++)
        c->g.hand[i] = (c->gp[i] - c->gm[i]) / (2 * HVP_STEP);
    return c->g.hand[0];
}

/* Clears the gradient and the HVP (shadows accumulate) before an HVP request. */
static void hvp_clear(hvp_ctx *c) {
    bench_zero(c->grad, (size_t)c->np);
    bench_zero(c->g.zyg, (size_t)c->np);
}

/* ---- logsumexp of n values */

typedef struct {
    hvp_ctx b;
} lse_hvp_ctx;

static void lse_hand_gradient(hvp_ctx *c, const double *x, double *g) { logsumexp_grad(x, c->np, g); }

/* g += grad logsumexp(x) (the function forward mode differentiates) */
static void lse_gradient(const double *x, double *g, int n) {
    ZB_AUTODIFFV((void *)logsumexp, enzyme_dup, x, g, enzyme_const, n);
}

void *lse_hvp_setup(int n, uint64_t seed) {
    lse_hvp_ctx *c = (lse_hvp_ctx *)calloc(1, sizeof *c);
    hvp_init(&c->b, n, lse_hand_gradient);
    adb_rng r = adb_rng_new(seed);
    for (int i = 0; i < n; i++)
        c->b.x[i] = adb_rng_uniform(&r, -5.0, 5.0); /* as scalar.c's logsumexp case */
    return c;
}

void lse_hvp_free(void *p) {
    lse_hvp_ctx *c = (lse_hvp_ctx *)p;
    hvp_release(&c->b);
    free(c);
}

double lse_hvp_primal(void *p) {
    lse_hvp_ctx *c = (lse_hvp_ctx *)p;
    return logsumexp(c->b.x, c->b.np);
}

double lse_hvp_gradient(void *p) {
    lse_hvp_ctx *c = (lse_hvp_ctx *)p;
    bench_zero(c->b.grad, (size_t)c->b.np);
    lse_gradient(c->b.x, c->b.grad, c->b.np);
    return c->b.grad[0];
}

double lse_hvp_zyg(void *p) {
    lse_hvp_ctx *c = (lse_hvp_ctx *)p;
    hvp_clear(&c->b);
    ZB_FWDDIFFV((void *)lse_gradient, enzyme_dup, c->b.x, c->b.v, enzyme_dup, c->b.grad, c->b.g.zyg, enzyme_const,
                c->b.np);
    return c->b.g.zyg[0];
}

double lse_hvp_hand(void *p) { return hvp_differences(&((lse_hvp_ctx *)p)->b); }

/* ---- the 2-layer MLP's loss, with respect to all its weights */

typedef struct {
    hvp_ctx b;
    int batch, d, h, o;
    double *X;
    int *labels;
} mlp_hvp_ctx;

static void mlp_hand_gradient(hvp_ctx *b, const double *theta, double *g) {
    mlp_hvp_ctx *c = (mlp_hvp_ctx *)b;
    mlp_loss_grad(theta, c->X, c->labels, c->batch, c->d, c->h, c->o, g);
}

static void mlp_gradient(const double *theta, double *g, const double *X, const int *labels, int batch, int d, int h,
                         int o) {
    ZB_AUTODIFFV((void *)mlp_loss, enzyme_dup, theta, g, enzyme_const, X, enzyme_const, labels, enzyme_const, batch,
                 enzyme_const, d, enzyme_const, h, enzyme_const, o);
}

void *mlp_hvp_setup(int batch, int d, int h, int o, uint64_t seed) {
    mlp_hvp_ctx *c = (mlp_hvp_ctx *)calloc(1, sizeof *c);
    c->batch = batch;
    c->d = d;
    c->h = h;
    c->o = o;
    hvp_init(&c->b, h * d + h + o * h + o, mlp_hand_gradient);
    c->X = (double *)malloc(sizeof(double) * batch * d);
    c->labels = (int *)malloc(sizeof(int) * batch);
    mlp_generate(batch, d, h, o, seed, c->b.x, c->X, c->labels);
    return c;
}

void mlp_hvp_free(void *p) {
    mlp_hvp_ctx *c = (mlp_hvp_ctx *)p;
    hvp_release(&c->b);
    free(c->X);
    free(c->labels);
    free(c);
}

double mlp_hvp_primal(void *p) {
    mlp_hvp_ctx *c = (mlp_hvp_ctx *)p;
    return mlp_loss(c->b.x, c->X, c->labels, c->batch, c->d, c->h, c->o);
}

double mlp_hvp_gradient(void *p) {
    mlp_hvp_ctx *c = (mlp_hvp_ctx *)p;
    bench_zero(c->b.grad, (size_t)c->b.np);
    mlp_gradient(c->b.x, c->b.grad, c->X, c->labels, c->batch, c->d, c->h, c->o);
    return c->b.grad[0];
}

double mlp_hvp_zyg(void *p) {
    mlp_hvp_ctx *c = (mlp_hvp_ctx *)p;
    hvp_clear(&c->b);
    ZB_FWDDIFFV((void *)mlp_gradient, enzyme_dup, c->b.x, c->b.v, enzyme_dup, c->b.grad, c->b.g.zyg, enzyme_const,
                c->X, enzyme_const, c->labels, enzyme_const, c->batch, enzyme_const, c->d, enzyme_const, c->h,
                enzyme_const, c->o);
    return c->b.g.zyg[0];
}

double mlp_hvp_hand(void *p) { return hvp_differences(&((mlp_hvp_ctx *)p)->b); }

/* ---- GMM, with respect to alphas, means and icf (one array, in that order) */

typedef struct {
    hvp_ctx b;
    int d, k, n;
    double *points;
} gmm_hvp_ctx;

static void gmm_hand_gradient(hvp_ctx *b, const double *theta, double *g) {
    gmm_hvp_ctx *c = (gmm_hvp_ctx *)b;
    int d = c->d, k = c->k;
    double err;
    gmm_objective_grad(d, k, c->n, theta, theta + k, theta + k + k * d, c->points, GMM_WISHART_GAMMA, GMM_WISHART_M,
                       &err, g, g + k, g + k + k * d);
}

static void gmm_gradient(int d, int k, int n, const double *theta, double *g, const double *points) {
    double err = 0.0, derr = 1.0;
    ZB_AUTODIFFV((void *)gmm_objective, enzyme_const, d, enzyme_const, k, enzyme_const, n, enzyme_dup, theta, g,
                 enzyme_dup, theta + k, g + k, enzyme_dup, theta + k + k * d, g + k + k * d, enzyme_const, points,
                 enzyme_const, GMM_WISHART_GAMMA, enzyme_const, GMM_WISHART_M, enzyme_dup, &err, &derr);
}

void *gmm_hvp_setup(int d, int k, int n, uint64_t seed) {
    gmm_hvp_ctx *c = (gmm_hvp_ctx *)calloc(1, sizeof *c);
    c->d = d;
    c->k = k;
    c->n = n;
    hvp_init(&c->b, k + k * d + k * gmm_icf_size(d), gmm_hand_gradient);
    c->points = (double *)malloc(sizeof(double) * n * d);
    gmm_generate(d, k, n, seed, c->b.x, c->b.x + k, c->b.x + k + k * d, c->points);
    return c;
}

void gmm_hvp_free(void *p) {
    gmm_hvp_ctx *c = (gmm_hvp_ctx *)p;
    hvp_release(&c->b);
    free(c->points);
    free(c);
}

double gmm_hvp_primal(void *p) {
    gmm_hvp_ctx *c = (gmm_hvp_ctx *)p;
    int d = c->d, k = c->k;
    double err;
    gmm_objective(d, k, c->n, c->b.x, c->b.x + k, c->b.x + k + k * d, c->points, GMM_WISHART_GAMMA, GMM_WISHART_M,
                  &err);
    return err;
}

double gmm_hvp_gradient(void *p) {
    gmm_hvp_ctx *c = (gmm_hvp_ctx *)p;
    bench_zero(c->b.grad, (size_t)c->b.np);
    gmm_gradient(c->d, c->k, c->n, c->b.x, c->b.grad, c->points);
    return c->b.grad[0];
}

double gmm_hvp_zyg(void *p) {
    gmm_hvp_ctx *c = (gmm_hvp_ctx *)p;
    hvp_clear(&c->b);
    ZB_FWDDIFFV((void *)gmm_gradient, enzyme_const, c->d, enzyme_const, c->k, enzyme_const, c->n, enzyme_dup, c->b.x,
                c->b.v, enzyme_dup, c->b.grad, c->b.g.zyg, enzyme_const, c->points);
    return c->b.g.zyg[0];
}

double gmm_hvp_hand(void *p) { return hvp_differences(&((gmm_hvp_ctx *)p)->b); }
