// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t.fast -ffast-math | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// A small classifier over a batch: dense layer + ReLU, dense layer + tanh, dense layer +
// softmax + cross-entropy (max-shifted), averaged over 3 samples; weights and biases in dup
// arrays, inputs and int labels const. (Inputs chosen so no ReLU sits at its kink.)
#include "zyg_check.h"

enum { IN = 4, H1 = 5, H2 = 4, OUT = 3, B = 3 };

static void dense(const double *W, const double *b, const double *x, double *y, int nin, int nout) {
    for (int o = 0; o < nout; o++) {
        double s = b[o];
        for (int i = 0; i < nin; i++)
            s += W[o * nin + i] * x[i];
        y[o] = s;
    }
}

double xent(const double *W1, const double *b1, const double *W2, const double *b2, const double *W3,
            const double *b3, const double *X, const int *labels) {
    double loss = 0.0;
    for (int n = 0; n < B; n++) {
        double h1[H1], h2[H2], z[OUT];
        dense(W1, b1, X + n * IN, h1, IN, H1);
        for (int i = 0; i < H1; i++)
            h1[i] = h1[i] > 0.0 ? h1[i] : 0.0;
        dense(W2, b2, h1, h2, H1, H2);
        for (int i = 0; i < H2; i++)
            h2[i] = tanh(h2[i]);
        dense(W3, b3, h2, z, H2, OUT);
        double m = z[0];
        for (int i = 1; i < OUT; i++)
            m = z[i] > m ? z[i] : m;
        double se = 0.0;
        for (int i = 0; i < OUT; i++)
            se += exp(z[i] - m);
        loss += -(z[labels[n]] - m - log(se));
    }
    return loss / B;
}

enum { NW1 = H1 * IN, NW2 = H2 * H1, NW3 = OUT * H2, NP = NW1 + H1 + NW2 + H2 + NW3 + OUT };
static double Xg[B * IN] = {0.5, -1.2, 0.3, 0.8, -0.4, 0.9, 1.1, -0.6, 1.3, 0.2, -0.7, 0.4};
static const int Lg[B] = {2, 0, 1};
static double loss_flat(const double *p) {
    double q[NP];
    for (int i = 0; i < NP; i++) q[i] = p[i];
    const double *W1 = q, *b1 = W1 + NW1, *W2 = b1 + H1, *b2 = W2 + NW2, *W3 = b2 + H2, *b3 = W3 + NW3;
    return xent(W1, b1, W2, b2, W3, b3, Xg, Lg);
}

static double fd(double (*g)(const double *), const double *x, int n, int k) {
    double a[128], b[128], h = ZYG_STEP(x[k]);
    for (int i = 0; i < n; i++) a[i] = b[i] = x[i];
    a[k] += h;
    b[k] -= h;
    return (g(a) - g(b)) / (2 * h);
}

int main(void) {
    for (int q = 0; q < 2; q++) {
        double p[NP], dp[NP] = {0};
        for (int i = 0; i < NP; i++) p[i] = 0.7 * sin(1.37 * i + 0.5 + q);
        double W1[NW1], b1[H1], W2[NW2], b2[H2], W3[NW3], b3[OUT];
        double dW1[NW1] = {0}, db1[H1] = {0}, dW2[NW2] = {0}, db2[H2] = {0}, dW3[NW3] = {0}, db3[OUT] = {0};
        double *dst[6] = {W1, b1, W2, b2, W3, b3};
        int len[6] = {NW1, H1, NW2, H2, NW3, OUT};
        for (int s = 0, o = 0; s < 6; o += len[s], s++)
            for (int i = 0; i < len[s]; i++) dst[s][i] = p[o + i];
        __enzyme_autodiff((void *)xent, enzyme_dup, W1, dW1, enzyme_dup, b1, db1, enzyme_dup, W2, dW2, enzyme_dup, b2,
                          db2, enzyme_dup, W3, dW3, enzyme_dup, b3, db3, enzyme_const, Xg, enzyme_const, Lg);
        double *grads[6] = {dW1, db1, dW2, db2, dW3, db3};
        for (int s = 0, o = 0; s < 6; o += len[s], s++)
            for (int i = 0; i < len[s]; i++) dp[o + i] = grads[s][i];
        for (int k = 0; k < NP; k++)
            check_close("dparam", dp[k], fd(loss_flat, p, NP, k), FD_RTOL, FD_ATOL);
    }
    return zyg_report();
}
