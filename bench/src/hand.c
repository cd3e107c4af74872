/* Hand tracking, simple model (bench/adbench/hand.h): the gradient of the sum of squared
 * errors with respect to the pose parameters theta (the model and the data constant). ADBench
 * asks for the full Jacobian of the 3 n_corr errors; a gradient is what both zyg and the
 * hand-written code here (hand_objective_sq_grad) compute in one reverse pass. */
#include "bench.h"
#include "../adbench/hand_grad.h"

typedef struct {
    bench_grad g; /* theta */
    int n_bones, n_verts, n_corr;
    int *parents, *corr;
    double *base_rel, *inv_base_abs, *base_pos, *weights, *points, *theta;
} hand_ctx;

void *hand_setup(int n_bones, int n_verts, int n_corr, uint64_t seed) {
    hand_ctx *c = (hand_ctx *)calloc(1, sizeof *c);
    c->n_bones = n_bones;
    c->n_verts = n_verts;
    c->n_corr = n_corr;
    int n_theta = hand_n_theta(n_bones);
    bench_grad_init(&c->g, n_theta);
    c->parents = (int *)malloc(sizeof(int) * n_bones);
    c->corr = (int *)malloc(sizeof(int) * n_corr);
    c->base_rel = (double *)malloc(sizeof(double) * 16 * n_bones);
    c->inv_base_abs = (double *)malloc(sizeof(double) * 16 * n_bones);
    c->base_pos = (double *)malloc(sizeof(double) * 4 * n_verts);
    c->weights = (double *)malloc(sizeof(double) * n_bones * n_verts);
    c->points = (double *)malloc(sizeof(double) * 3 * n_corr);
    c->theta = (double *)malloc(sizeof(double) * n_theta);
    hand_generate(n_bones, n_verts, n_corr, seed, c->parents, c->base_rel, c->inv_base_abs, c->base_pos, c->weights,
                  c->corr, c->points, c->theta);
    /* away from the pose that generated the points, so that the residuals are not just noise */
    adb_rng r = adb_rng_new(seed + 1);
    for (int i = 0; i < n_theta; i++)
        c->theta[i] += adb_rng_uniform(&r, -0.1, 0.1);
    return c;
}

void hand_free(void *p) {
    hand_ctx *c = (hand_ctx *)p;
    bench_grad_free(&c->g);
    free(c->parents);
    free(c->corr);
    free(c->base_rel);
    free(c->inv_base_abs);
    free(c->base_pos);
    free(c->weights);
    free(c->points);
    free(c->theta);
    free(c);
}

double hand_primal(void *p) {
    hand_ctx *c = (hand_ctx *)p;
    return hand_objective_sq(c->n_bones, c->parents, c->base_rel, c->inv_base_abs, c->n_verts, c->base_pos, c->weights,
                             0, c->n_corr, c->corr, c->points, c->theta);
}

double hand_zyg(void *p) {
    hand_ctx *c = (hand_ctx *)p;
    bench_zero(c->g.zyg, (size_t)c->g.n);
    ZB_AUTODIFFV((void *)hand_objective_sq, enzyme_const, c->n_bones, enzyme_const, c->parents, enzyme_const,
                 c->base_rel, enzyme_const, c->inv_base_abs, enzyme_const, c->n_verts, enzyme_const, c->base_pos,
                 enzyme_const, c->weights, enzyme_const, 0, enzyme_const, c->n_corr, enzyme_const, c->corr,
                 enzyme_const, c->points, enzyme_dup, c->theta, c->g.zyg);
    return c->g.zyg[0];
}

double hand_hand(void *p) {
    hand_ctx *c = (hand_ctx *)p;
    return hand_objective_sq_grad(c->n_bones, c->parents, c->base_rel, c->inv_base_abs, c->n_verts, c->base_pos,
                                  c->weights, 0, c->n_corr, c->corr, c->points, c->theta, c->g.hand);
}
