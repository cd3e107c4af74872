/* Forward mode on the ADBench objectives (the `modes` family):
 *
 * - JVP cases: the derivative of the GMM or LSTM objective along one direction of all its
 *   parameters, by forward mode (`__enzyme_fwddiff`), one number; "hand" is the hand-written
 *   gradient dotted with the direction. zyg/primal is the JVP's cost in units of the primal.
 *
 * The family's Hessian-vector products are in hvp.c, a translation unit of its own: it
 * compiles the ADBench helpers always_inline, which forward over reverse needs at -O2. */
#include "bench.h"
#include "../adbench/gmm_grad.h"
#include "../adbench/lstm_grad.h"

typedef struct {
    bench_grad g;
    void *base;      /* the gmm or lstm case's context (gmm.c, lstm.c) */
    int np;          /* parameters */
    double *v;       /* the direction */
    double *scratch; /* a gradient */
} modes_ctx;

typedef struct {
    bench_grad g;
    int d, k, n;
    double *alphas, *means, *icf, *x;
} gmm_view; /* gmm.c's gmm_ctx */

typedef struct {
    bench_grad g;
    int l, c, b;
    double *main_params, *extra_params, *state, *sequence;
} lstm_view; /* lstm.c's lstm_ctx */

void *gmm_setup(int d, int k, int n, uint64_t seed);
void gmm_free(void *p);
double gmm_primal(void *p);
void *lstm_setup(int l, int c, int b, uint64_t seed);
void lstm_free(void *p);
double lstm_primal(void *p);

static modes_ctx *modes_new(void *base, int np, int len) {
    modes_ctx *m = (modes_ctx *)calloc(1, sizeof *m);
    m->base = base;
    m->np = np;
    bench_grad_init(&m->g, len);
    m->v = (double *)malloc(sizeof(double) * np);
    for (int i = 0; i < np; i++)
        m->v[i] = sin(0.7 * i + 0.3); /* a direction with no special structure */
    m->scratch = (double *)calloc(np, sizeof(double));
    return m;
}

static void modes_free(modes_ctx *m) {
    bench_grad_free(&m->g);
    free(m->v);
    free(m->scratch);
    free(m);
}

static double dot(const double *a, const double *b, int n) {
    double s = 0;
    for (int i = 0; i < n; i++)
        s += a[i] * b[i];
    return s;
}

/* ---- GMM */

static int gmm_params(const gmm_view *c) { return c->k + c->k * c->d + c->k * gmm_icf_size(c->d); }

void *gmm_jvp_setup(int d, int k, int n, uint64_t seed) {
    gmm_view *c = (gmm_view *)gmm_setup(d, k, n, seed);
    return modes_new(c, gmm_params(c), 1);
}

void gmm_modes_free(void *p) {
    modes_ctx *m = (modes_ctx *)p;
    gmm_free(m->base);
    modes_free(m);
}

double gmm_jvp_primal(void *p) { return gmm_primal(((modes_ctx *)p)->base); }

double gmm_jvp_zyg(void *p) {
    modes_ctx *m = (modes_ctx *)p;
    gmm_view *c = (gmm_view *)m->base;
    int d = c->d, k = c->k;
    double *va = m->v, *vm = va + k, *vq = vm + k * d;
    double err = 0.0, derr = 0.0;
    ZB_FWDDIFFV((void *)gmm_objective, enzyme_const, d, enzyme_const, k, enzyme_const, c->n, enzyme_dup, c->alphas, va,
                enzyme_dup, c->means, vm, enzyme_dup, c->icf, vq, enzyme_const, c->x, enzyme_const, GMM_WISHART_GAMMA,
                enzyme_const, GMM_WISHART_M, enzyme_dup, &err, &derr);
    m->g.zyg[0] = derr;
    return err;
}

static void gmm_hand_gradient(gmm_view *c, const double *alphas, const double *means, const double *icf, double *out) {
    int d = c->d, k = c->k;
    double err;
    gmm_objective_grad(d, k, c->n, alphas, means, icf, c->x, GMM_WISHART_GAMMA, GMM_WISHART_M, &err, out, out + k,
                       out + k + k * d);
}

double gmm_jvp_hand(void *p) {
    modes_ctx *m = (modes_ctx *)p;
    gmm_view *c = (gmm_view *)m->base;
    gmm_hand_gradient(c, c->alphas, c->means, c->icf, m->scratch);
    m->g.hand[0] = dot(m->scratch, m->v, m->np);
    return m->g.hand[0];
}

/* ---- LSTM */

void *lstm_jvp_setup(int l, int c, int b, uint64_t seed) {
    lstm_view *x = (lstm_view *)lstm_setup(l, c, b, seed);
    return modes_new(x, lstm_main_params_size(l, b) + lstm_extra_params_size(b), 1);
}

void lstm_modes_free(void *p) {
    modes_ctx *m = (modes_ctx *)p;
    lstm_free(m->base);
    modes_free(m);
}

double lstm_jvp_primal(void *p) { return lstm_primal(((modes_ctx *)p)->base); }

double lstm_jvp_zyg(void *p) {
    modes_ctx *m = (modes_ctx *)p;
    lstm_view *x = (lstm_view *)m->base;
    double *vmain = m->v, *vextra = vmain + lstm_main_params_size(x->l, x->b);
    double loss = 0.0, dloss = 0.0;
    ZB_FWDDIFFV((void *)lstm_objective, enzyme_const, x->l, enzyme_const, x->c, enzyme_const, x->b, enzyme_dup,
                x->main_params, vmain, enzyme_dup, x->extra_params, vextra, enzyme_const, x->state, enzyme_const,
                x->sequence, enzyme_dup, &loss, &dloss);
    m->g.zyg[0] = dloss;
    return loss;
}

double lstm_jvp_hand(void *p) {
    modes_ctx *m = (modes_ctx *)p;
    lstm_view *x = (lstm_view *)m->base;
    double *dmain = m->scratch, *dextra = dmain + lstm_main_params_size(x->l, x->b);
    double loss;
    lstm_objective_grad(x->l, x->c, x->b, x->main_params, x->extra_params, x->state, x->sequence, &loss, dmain, dextra);
    m->g.hand[0] = dot(m->scratch, m->v, m->np);
    return loss;
}
