/* ADBench objective 3: a multi-layer LSTM language model's loss (Srajer, Habib, Fitzgibbon
 * 2018, section 3.4; the reference is ADBench's src/cpp/shared/lstm.h). Plain C over arrays;
 * static functions only.
 *
 *   l: layers, c: characters in the sequence, b: hidden size = character width
 *   main_params[2*l*4*b]: per layer (at 8*b*layer) the weights, then the biases, each as four
 *                         vectors of b: forget gate, input gate, output gate, change (cell input)
 *   extra_params[3*b]:    input weight, output weight, output bias
 *   state[2*l*b]:         per layer (at 2*b*layer) the hidden vector, then the cell vector;
 *                         the objective works on a copy, as the reference takes it by value
 *   sequence[c*b]:        the characters, one vector of b each
 *
 * Each step runs the characters t = 0..c-2 through the model and scores the prediction against
 * character t+1 with a log-softmax; loss = -(sum of scores) / ((c-1) b).
 *
 * The reference's logsumexp is log(sum(exp(x)) + 2), not a plain log-sum-exp; it is kept as
 * is, so that the values match ADBench's. */
#ifndef ZYG_ADBENCH_LSTM_H
#define ZYG_ADBENCH_LSTM_H
#include "common.h"

ADB_FN int lstm_main_params_size(int l, int b) { return 2 * l * 4 * b; }
ADB_FN int lstm_extra_params_size(int b) { return 3 * b; }
ADB_FN int lstm_state_size(int l, int b) { return 2 * l * b; }

ADB_FN double lstm_sigmoid(double x) { return 1.0 / (1.0 + exp(-x)); }

/* log(sum(exp(vect)) + 2), as the reference computes it */
ADB_FN double lstm_logsumexp(const double *vect, int sz) {
    double sum = 0.0;
    for (int i = 0; i < sz; ++i)
        sum += exp(vect[i]);
    sum += 2;
    return log(sum);
}

/* One layer: params (8b: weights then biases of forget, ingate, outgate, change), the
 * layer's hidden[b] and cell[b] updated in place, input[b]. */
ADB_FN void lstm_model(int hsize, const double *params, double *hidden, double *cell, const double *input) {
    const double *w_forget = params, *w_ingate = &params[hsize], *w_outgate = &params[2 * hsize],
                 *w_change = &params[3 * hsize];
    const double *bias = &params[4 * hsize];
    const double *b_forget = bias, *b_ingate = &bias[hsize], *b_outgate = &bias[2 * hsize],
                 *b_change = &bias[3 * hsize];
    for (int i = 0; i < hsize; ++i) {
        double forget = lstm_sigmoid(input[i] * w_forget[i] + b_forget[i]);
        double ingate = lstm_sigmoid(hidden[i] * w_ingate[i] + b_ingate[i]);
        double outgate = lstm_sigmoid(input[i] * w_outgate[i] + b_outgate[i]);
        double change = tanh(hidden[i] * w_change[i] + b_change[i]);
        cell[i] = cell[i] * forget + ingate * change;
        hidden[i] = outgate * tanh(cell[i]);
    }
}

/* Runs input[b] through the l layers (updating state) and writes the prediction output[b]. */
ADB_FN void lstm_predict(int l, int b, const double *main_params, const double *extra_params, double *state,
                         const double *input, double *output) {
    const double *in_weight = extra_params, *out_weight = &extra_params[b], *out_bias = &extra_params[2 * b];
    for (int i = 0; i < b; ++i)
        output[i] = input[i] * in_weight[i];
    const double *layer_output = output;
    for (int i = 0; i < l; ++i) {
        double *hidden = &state[2 * b * i], *cell = &state[2 * b * i + b];
        lstm_model(b, &main_params[8 * b * i], hidden, cell, layer_output);
        layer_output = hidden;
    }
    for (int i = 0; i < b; ++i)
        output[i] = layer_output[i] * out_weight[i] + out_bias[i];
}

ADB_FN void lstm_objective(int l, int c, int b, const double *main_params, const double *extra_params,
                           const double *state_in, const double *sequence, double *loss) {
    double total = 0.0;
    int count = 0;
    double *state = (double *)malloc(sizeof(double) * 2 * l * b);
    double *ypred = (double *)malloc(sizeof(double) * b);
    double *ynorm = (double *)malloc(sizeof(double) * b);
    for (int i = 0; i < 2 * l * b; i++)
        state[i] = state_in[i];
    for (int t = 0; t < c - 1; ++t) {
        lstm_predict(l, b, main_params, extra_params, state, &sequence[t * b], ypred);
        double lse = lstm_logsumexp(ypred, b);
        for (int i = 0; i < b; i++)
            ynorm[i] = ypred[i] - lse;
        const double *ygold = &sequence[(t + 1) * b];
        for (int i = 0; i < b; i++)
            total += ygold[i] * ynorm[i];
        count += b;
    }
    *loss = -total / count;
    free(state);
    free(ypred);
    free(ynorm);
}

/* The same objective returning its value. */
ADB_FN double lstm_objective_value(int l, int c, int b, const double *main_params, const double *extra_params,
                                   const double *state, const double *sequence) {
    double loss;
    lstm_objective(l, c, b, main_params, extra_params, state, sequence, &loss);
    return loss;
}

/* Fills main_params[2*l*4*b], extra_params[3*b], state[2*l*b] and sequence[c*b]
 * deterministically from seed, all uniform in [-1, 1) (as ADBench's generated instances). */
ADB_FN void lstm_generate(int l, int c, int b, uint64_t seed, double *main_params, double *extra_params,
                          double *state, double *sequence) {
    adb_rng r = adb_rng_new(seed);
    for (int i = 0; i < lstm_main_params_size(l, b); i++)
        main_params[i] = adb_rng_uniform(&r, -1.0, 1.0);
    for (int i = 0; i < lstm_extra_params_size(b); i++)
        extra_params[i] = adb_rng_uniform(&r, -1.0, 1.0);
    for (int i = 0; i < lstm_state_size(l, b); i++)
        state[i] = adb_rng_uniform(&r, -1.0, 1.0);
    for (int i = 0; i < c * b; i++)
        sequence[i] = adb_rng_uniform(&r, -1.0, 1.0);
}

#endif
