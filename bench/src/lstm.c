/* LSTM loss (bench/adbench/lstm.h): the gradient with respect to the main and extra
 * parameters (the initial state and the sequence constant), as ADBench measures it. */
#include "bench.h"
#include "../adbench/lstm_grad.h"

typedef struct {
    bench_grad g; /* main parameters, then extra parameters */
    int l, c, b;
    double *main_params, *extra_params, *state, *sequence;
} lstm_ctx;

void *lstm_setup(int l, int c, int b, uint64_t seed) {
    lstm_ctx *x = (lstm_ctx *)calloc(1, sizeof *x);
    x->l = l;
    x->c = c;
    x->b = b;
    bench_grad_init(&x->g, lstm_main_params_size(l, b) + lstm_extra_params_size(b));
    x->main_params = (double *)malloc(sizeof(double) * lstm_main_params_size(l, b));
    x->extra_params = (double *)malloc(sizeof(double) * lstm_extra_params_size(b));
    x->state = (double *)malloc(sizeof(double) * lstm_state_size(l, b));
    x->sequence = (double *)malloc(sizeof(double) * c * b);
    lstm_generate(l, c, b, seed, x->main_params, x->extra_params, x->state, x->sequence);
    return x;
}

void lstm_free(void *p) {
    lstm_ctx *x = (lstm_ctx *)p;
    bench_grad_free(&x->g);
    free(x->main_params);
    free(x->extra_params);
    free(x->state);
    free(x->sequence);
    free(x);
}

double lstm_primal(void *p) {
    lstm_ctx *x = (lstm_ctx *)p;
    double loss;
    lstm_objective(x->l, x->c, x->b, x->main_params, x->extra_params, x->state, x->sequence, &loss);
    return loss;
}

double lstm_zyg(void *p) {
    lstm_ctx *x = (lstm_ctx *)p;
    double *dmain = x->g.zyg, *dextra = dmain + lstm_main_params_size(x->l, x->b);
    bench_zero(x->g.zyg, (size_t)x->g.n);
    double loss = 0.0, dloss = 1.0;
    ZB_AUTODIFFV((void *)lstm_objective, enzyme_const, x->l, enzyme_const, x->c, enzyme_const, x->b, enzyme_dup,
                 x->main_params, dmain, enzyme_dup, x->extra_params, dextra, enzyme_const, x->state, enzyme_const,
                 x->sequence, enzyme_dup, &loss, &dloss);
    return loss;
}

double lstm_hand(void *p) {
    lstm_ctx *x = (lstm_ctx *)p;
    double *dmain = x->g.hand, *dextra = dmain + lstm_main_params_size(x->l, x->b);
    double loss;
    lstm_objective_grad(x->l, x->c, x->b, x->main_params, x->extra_params, x->state, x->sequence, &loss, dmain,
                        dextra);
    return loss;
}
