/* Hand-written gradient of the LSTM objective (bench/adbench/lstm.h) with respect to the main
 * and extra parameters, for the benchmarks' baseline: a forward sweep that keeps every
 * layer's input, previous state and gate values, then backpropagation through time.
 * Static functions only. */
#ifndef ZYG_ADBENCH_LSTM_GRAD_H
#define ZYG_ADBENCH_LSTM_GRAD_H
#include "lstm.h"

/* per (t, layer) record of b values each */
enum { LSTM_REC_X, LSTM_REC_H, LSTM_REC_C, LSTM_REC_F, LSTM_REC_I, LSTM_REC_O, LSTM_REC_CH, LSTM_REC_CNEW, LSTM_REC_N };

/* Writes the loss to *loss and its gradient to dmain[2*l*4*b] and dextra[3*b] (overwritten).
 * state and sequence are constants. */
ADB_FN void lstm_objective_grad(int l, int c, int b, const double *main_params, const double *extra_params,
                                const double *state_in, const double *sequence, double *loss, double *dmain,
                                double *dextra) {
    int steps = c - 1 > 0 ? c - 1 : 0, count = steps * b;
    double *rec = (double *)malloc(sizeof(double) * (size_t)(steps > 0 ? steps : 1) * l * LSTM_REC_N * b);
    double *ypred = (double *)malloc(sizeof(double) * (size_t)(steps > 0 ? steps : 1) * b);
    double *lse = (double *)malloc(sizeof(double) * (steps > 0 ? steps : 1));
    double *state = (double *)malloc(sizeof(double) * 2 * l * b);
    double *dh = (double *)calloc(l * b, sizeof(double));
    double *dc = (double *)calloc(l * b, sizeof(double));
    double *dx = (double *)malloc(sizeof(double) * b);
    const double *in_weight = extra_params, *out_weight = &extra_params[b], *out_bias = &extra_params[2 * b];
    for (int i = 0; i < 2 * l * b; i++)
        state[i] = state_in[i];

    /* forward */
    double total = 0.0;
    for (int t = 0; t < steps; t++) {
        for (int layer = 0; layer < l; layer++) {
            double *r = &rec[((size_t)t * l + layer) * LSTM_REC_N * b];
            const double *p = &main_params[8 * b * layer];
            double *hidden = &state[2 * b * layer], *cell = &state[2 * b * layer + b];
            for (int i = 0; i < b; i++) {
                double x = layer == 0 ? sequence[t * b + i] * in_weight[i] : state[2 * b * (layer - 1) + i];
                double f = lstm_sigmoid(x * p[i] + p[4 * b + i]);
                double ig = lstm_sigmoid(hidden[i] * p[b + i] + p[5 * b + i]);
                double o = lstm_sigmoid(x * p[2 * b + i] + p[6 * b + i]);
                double ch = tanh(hidden[i] * p[3 * b + i] + p[7 * b + i]);
                r[LSTM_REC_X * b + i] = x;
                r[LSTM_REC_H * b + i] = hidden[i];
                r[LSTM_REC_C * b + i] = cell[i];
                r[LSTM_REC_F * b + i] = f;
                r[LSTM_REC_I * b + i] = ig;
                r[LSTM_REC_O * b + i] = o;
                r[LSTM_REC_CH * b + i] = ch;
                cell[i] = cell[i] * f + ig * ch;
                hidden[i] = o * tanh(cell[i]);
                r[LSTM_REC_CNEW * b + i] = cell[i];
            }
        }
        double *y = &ypred[t * b];
        for (int i = 0; i < b; i++)
            y[i] = state[2 * b * (l - 1) + i] * out_weight[i] + out_bias[i];
        lse[t] = lstm_logsumexp(y, b);
        for (int i = 0; i < b; i++)
            total += sequence[(t + 1) * b + i] * (y[i] - lse[t]);
    }
    *loss = -total / count;

    /* reverse */
    for (int i = 0; i < 2 * l * 4 * b; i++)
        dmain[i] = 0.0;
    for (int i = 0; i < 3 * b; i++)
        dextra[i] = 0.0;
    double *din_weight = dextra, *dout_weight = &dextra[b], *dout_bias = &dextra[2 * b];
    double dtotal = -1.0 / count;
    for (int t = steps - 1; t >= 0; t--) {
        const double *y = &ypred[t * b], *gold = &sequence[(t + 1) * b];
        double sum_dynorm = 0.0;
        for (int i = 0; i < b; i++)
            sum_dynorm += dtotal * gold[i];
        const double *rl = &rec[((size_t)t * l + (l - 1)) * LSTM_REC_N * b];
        for (int i = 0; i < b; i++) {
            double dy = dtotal * gold[i] - sum_dynorm * exp(y[i] - lse[t]);
            double h_out = rl[LSTM_REC_O * b + i] * tanh(rl[LSTM_REC_CNEW * b + i]);
            dout_weight[i] += dy * h_out;
            dout_bias[i] += dy;
            dh[(l - 1) * b + i] += dy * out_weight[i];
        }
        for (int layer = l - 1; layer >= 0; layer--) {
            const double *r = &rec[((size_t)t * l + layer) * LSTM_REC_N * b];
            const double *p = &main_params[8 * b * layer];
            double *dp = &dmain[8 * b * layer];
            for (int i = 0; i < b; i++) {
                double x = r[LSTM_REC_X * b + i], h = r[LSTM_REC_H * b + i], cprev = r[LSTM_REC_C * b + i];
                double f = r[LSTM_REC_F * b + i], ig = r[LSTM_REC_I * b + i], o = r[LSTM_REC_O * b + i];
                double ch = r[LSTM_REC_CH * b + i], tc = tanh(r[LSTM_REC_CNEW * b + i]);
                double dhn = dh[layer * b + i];
                double dcn = dc[layer * b + i] + dhn * o * (1 - tc * tc);
                double dzf = dcn * cprev * f * (1 - f);
                double dzi = dcn * ch * ig * (1 - ig);
                double dzo = dhn * tc * o * (1 - o);
                double dzc = dcn * ig * (1 - ch * ch);
                dp[i] += dzf * x;
                dp[4 * b + i] += dzf;
                dp[b + i] += dzi * h;
                dp[5 * b + i] += dzi;
                dp[2 * b + i] += dzo * x;
                dp[6 * b + i] += dzo;
                dp[3 * b + i] += dzc * h;
                dp[7 * b + i] += dzc;
                dx[i] = dzf * p[i] + dzo * p[2 * b + i];
                dh[layer * b + i] = dzi * p[b + i] + dzc * p[3 * b + i];
                dc[layer * b + i] = dcn * f;
            }
            if (layer > 0)
                for (int i = 0; i < b; i++)
                    dh[(layer - 1) * b + i] += dx[i];
            else
                for (int i = 0; i < b; i++)
                    din_weight[i] += dx[i] * sequence[t * b + i];
        }
    }
    free(rec);
    free(ypred);
    free(lse);
    free(state);
    free(dh);
    free(dc);
    free(dx);
}

#endif
