/* GMM objective with a Wishart prior (bench/adbench/gmm.h): the gradient with respect to
 * alphas, means and icf (x and the Wishart parameters constant), as ADBench measures it. */
#include "bench.h"
#include "../adbench/gmm_grad.h"

typedef struct {
    bench_grad g; /* alphas (k), then means (k d), then icf (k d (d+1)/2) */
    int d, k, n;
    double *alphas, *means, *icf, *x;
} gmm_ctx;

void *gmm_setup(int d, int k, int n, uint64_t seed) {
    gmm_ctx *c = (gmm_ctx *)calloc(1, sizeof *c);
    c->d = d;
    c->k = k;
    c->n = n;
    int icf_sz = gmm_icf_size(d);
    bench_grad_init(&c->g, k + k * d + k * icf_sz);
    c->alphas = (double *)malloc(sizeof(double) * k);
    c->means = (double *)malloc(sizeof(double) * k * d);
    c->icf = (double *)malloc(sizeof(double) * k * icf_sz);
    c->x = (double *)malloc(sizeof(double) * n * d);
    gmm_generate(d, k, n, seed, c->alphas, c->means, c->icf, c->x);
    return c;
}

void gmm_free(void *p) {
    gmm_ctx *c = (gmm_ctx *)p;
    bench_grad_free(&c->g);
    free(c->alphas);
    free(c->means);
    free(c->icf);
    free(c->x);
    free(c);
}

double gmm_primal(void *p) {
    gmm_ctx *c = (gmm_ctx *)p;
    double err;
    gmm_objective(c->d, c->k, c->n, c->alphas, c->means, c->icf, c->x, GMM_WISHART_GAMMA, GMM_WISHART_M, &err);
    return err;
}

double gmm_zyg(void *p) {
    gmm_ctx *c = (gmm_ctx *)p;
    int d = c->d, k = c->k;
    double *da = c->g.zyg, *dm = da + k, *dq = dm + k * d;
    bench_zero(c->g.zyg, (size_t)c->g.n);
    double err = 0.0, derr = 1.0;
    ZB_AUTODIFFV((void *)gmm_objective, enzyme_const, d, enzyme_const, k, enzyme_const, c->n, enzyme_dup, c->alphas,
                 da, enzyme_dup, c->means, dm, enzyme_dup, c->icf, dq, enzyme_const, c->x, enzyme_const,
                 GMM_WISHART_GAMMA, enzyme_const, GMM_WISHART_M, enzyme_dup, &err, &derr);
    return err;
}

double gmm_hand(void *p) {
    gmm_ctx *c = (gmm_ctx *)p;
    int d = c->d, k = c->k;
    double *da = c->g.hand, *dm = da + k, *dq = dm + k * d;
    double err;
    gmm_objective_grad(d, k, c->n, c->alphas, c->means, c->icf, c->x, GMM_WISHART_GAMMA, GMM_WISHART_M, &err, da, dm,
                       dq);
    return err;
}
