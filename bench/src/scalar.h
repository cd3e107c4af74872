/* Kernels of the `scalar` family that the Hessian-vector products of the `modes` family
 * (hvp.c) differentiate again: logsumexp and the 2-layer MLP's loss, each with its
 * hand-written gradient and (the MLP) its input generator. Included by scalar.c and hvp.c. */
#ifndef ZYG_BENCH_SCALAR_H
#define ZYG_BENCH_SCALAR_H
#include "bench.h"
#include "../adbench/common.h"

#define SK_FN static __attribute__((unused))

/* logsumexp over n values, shifted by the maximum */

SK_FN double logsumexp(const double *x, int n) {
    double m = x[0];
    for (int i = 1; i < n; i++)
        if (x[i] > m)
            m = x[i];
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += exp(x[i] - m);
    return log(s) + m;
}

/* logsumexp's gradient, the softmax, written to g; returns logsumexp */
SK_FN double logsumexp_grad(const double *x, int n, double *g) {
    double lse = logsumexp(x, n);
    for (int i = 0; i < n; i++)
        g[i] = exp(x[i] - lse);
    return lse;
}

/* a 2-layer MLP: tanh hidden layer, softmax cross-entropy, mean over a batch; the gradient
 * with respect to all parameters theta = W1 (h x d), b1 (h), W2 (o x h), b2 (o) */

SK_FN double mlp_loss(const double *theta, const double *X, const int *labels, int batch, int d, int h, int o) {
    const double *W1 = theta, *b1 = W1 + h * d, *W2 = b1 + h, *b2 = W2 + o * h;
    double *hid = (double *)malloc(sizeof(double) * h);
    double *z = (double *)malloc(sizeof(double) * o);
    double loss = 0.0;
    for (int s = 0; s < batch; s++) {
        const double *x = &X[(size_t)s * d];
        for (int j = 0; j < h; j++) {
            double a = b1[j];
            for (int i = 0; i < d; i++)
                a += W1[j * d + i] * x[i];
            hid[j] = tanh(a);
        }
        for (int k = 0; k < o; k++) {
            double a = b2[k];
            for (int j = 0; j < h; j++)
                a += W2[k * h + j] * hid[j];
            z[k] = a;
        }
        double m = z[0];
        for (int k = 1; k < o; k++)
            if (z[k] > m)
                m = z[k];
        double se = 0.0;
        for (int k = 0; k < o; k++)
            se += exp(z[k] - m);
        loss += log(se) + m - z[labels[s]];
    }
    free(hid);
    free(z);
    return loss / batch;
}

/* mlp_loss's gradient with respect to theta, written to dtheta, by backpropagation one sample at
 * a time; returns the loss */
SK_FN double mlp_loss_grad(const double *theta, const double *X, const int *labels, int batch, int d, int h, int o,
                           double *dtheta) {
    const double *W1 = theta, *b1 = W1 + h * d, *W2 = b1 + h, *b2 = W2 + o * h;
    double *dW1 = dtheta, *db1 = dW1 + h * d, *dW2 = db1 + h, *db2 = dW2 + o * h;
    bench_zero(dtheta, (size_t)(h * d + h + o * h + o));
    double *hid = (double *)malloc(sizeof(double) * h);
    double *dhid = (double *)malloc(sizeof(double) * h);
    double *z = (double *)malloc(sizeof(double) * o);
    double loss = 0.0, inv = 1.0 / batch;
    for (int s = 0; s < batch; s++) {
        const double *x = &X[(size_t)s * d];
        for (int j = 0; j < h; j++) {
            double a = b1[j];
            for (int i = 0; i < d; i++)
                a += W1[j * d + i] * x[i];
            hid[j] = tanh(a);
        }
        for (int k = 0; k < o; k++) {
            double a = b2[k];
            for (int j = 0; j < h; j++)
                a += W2[k * h + j] * hid[j];
            z[k] = a;
        }
        double m = z[0];
        for (int k = 1; k < o; k++)
            if (z[k] > m)
                m = z[k];
        double se = 0.0;
        for (int k = 0; k < o; k++)
            se += exp(z[k] - m);
        double lse = log(se) + m;
        int y = labels[s];
        loss += lse - z[y];
        for (int j = 0; j < h; j++)
            dhid[j] = 0.0;
        for (int k = 0; k < o; k++) {
            double dz = (exp(z[k] - lse) - (k == y)) * inv;
            db2[k] += dz;
            for (int j = 0; j < h; j++) {
                dW2[k * h + j] += dz * hid[j];
                dhid[j] += W2[k * h + j] * dz;
            }
        }
        for (int j = 0; j < h; j++) {
            double da = dhid[j] * (1.0 - hid[j] * hid[j]);
            db1[j] += da;
            for (int i = 0; i < d; i++)
                dW1[j * d + i] += da * x[i];
        }
    }
    free(hid);
    free(dhid);
    free(z);
    return loss * inv;
}

/* The MLP's inputs from seed: theta (h d + h + o h + o), X (batch d), labels (batch) */
SK_FN void mlp_generate(int batch, int d, int h, int o, uint64_t seed, double *theta, double *X, int *labels) {
    int np = h * d + h + o * h + o;
    adb_rng r = adb_rng_new(seed);
    double s1 = 1.0 / sqrt((double)d), s2 = 1.0 / sqrt((double)h);
    for (int i = 0; i < np; i++)
        theta[i] = adb_rng_uniform(&r, -1.0, 1.0) * (i < h * d + h ? s1 : s2);
    for (int i = 0; i < batch * d; i++)
        X[i] = adb_rng_uniform(&r, 0.0, 1.0);
    for (int s = 0; s < batch; s++)
        labels[s] = adb_rng_int(&r, o);
}

#endif
