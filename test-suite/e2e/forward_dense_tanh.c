// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// RUN: %grad-run -O3 %s %t.native -march=native | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Forward mode through a small neural network's forward pass: two dense layers with tanh
// and a softplus, weights and biases in one parameter vector (`enzyme_dup`: a direction in
// parameter space), a batch of inputs (`enzyme_const`, and also active), activations in a
// stack buffer, and a mean-squared loss against targets. The tangent of the loss and of
// the network's outputs (a `dup` output array) against central differences along the same
// direction.
#include <string.h>
#include "zyg_check.h"

#define IN 4
#define HID 6
#define OUT 2
#define BATCH 5
#define NPARAM (HID * IN + HID + OUT * HID + OUT)

static void dense(const double *W, const double *b, const double *x, double *y, int nin, int nout, int act) {
    for (int o = 0; o < nout; o++) {
        double s = b[o];
        for (int i = 0; i < nin; i++) s += W[o * nin + i] * x[i];
        y[o] = act ? tanh(s) : log1p(exp(s));
    }
}

static double loss(const double *theta, const double *xs, const double *targets, double *outs) {
    const double *W1 = theta, *b1 = W1 + HID * IN, *W2 = b1 + HID, *b2 = W2 + OUT * HID;
    double l = 0;
    for (int n = 0; n < BATCH; n++) {
        double hid[HID];
        dense(W1, b1, xs + n * IN, hid, IN, HID, 1);
        dense(W2, b2, hid, outs + n * OUT, HID, OUT, 0);
        for (int o = 0; o < OUT; o++) {
            double e = outs[n * OUT + o] - targets[n * OUT + o];
            l += e * e;
        }
    }
    return l / BATCH;
}

int main(void) {
    double theta[NPARAM], dtheta[NPARAM], tp[NPARAM], tm[NPARAM];
    double xs[BATCH * IN], dxs[BATCH * IN], xp[BATCH * IN], xm[BATCH * IN], tg[BATCH * OUT];
    double outs[BATCH * OUT], douts[BATCH * OUT], op[BATCH * OUT], om[BATCH * OUT];
    double h = 1e-6;
    for (int i = 0; i < BATCH * IN; i++) xs[i] = sin(1.7 * i) * 0.9;
    for (int i = 0; i < BATCH * OUT; i++) tg[i] = 0.5 + 0.3 * cos(2.1 * i);
    for (int q = 0; q < 3; q++) {
        for (int i = 0; i < NPARAM; i++) {
            theta[i] = 0.4 * sin(0.61 * i + q) + 0.05 * q;
            dtheta[i] = q == 0 ? (i == 7) : q == 1 ? (i >= HID * IN + HID) * cos(i) : 0.2 * sin(1.3 * i);
            tp[i] = theta[i] + h * dtheta[i], tm[i] = theta[i] - h * dtheta[i];
        }
        memset(douts, 0, sizeof douts);
        double t = __enzyme_fwddiff((void *)loss, enzyme_dup, theta, dtheta, enzyme_const, xs, enzyme_const, tg, enzyme_dup, outs, douts);
        double lp = loss(tp, xs, tg, op), lm = loss(tm, xs, tg, om);
        check_close("loss along dtheta", t, (lp - lm) / (2 * h), FD_RTOL, FD_ATOL);
        for (int i = 0; i < BATCH * OUT; i++) check_close("outputs along dtheta", douts[i], (op[i] - om[i]) / (2 * h), FD_RTOL, FD_ATOL);
        /* inputs active too (an input-gradient direction) */
        for (int i = 0; i < BATCH * IN; i++) dxs[i] = 0.1 * ((i + q) % 4) - 0.15, xp[i] = xs[i] + h * dxs[i], xm[i] = xs[i] - h * dxs[i];
        memset(douts, 0, sizeof douts);
        t = __enzyme_fwddiff((void *)loss, enzyme_dup, theta, dtheta, enzyme_dup, xs, dxs, enzyme_const, tg, enzyme_dup, outs, douts);
        lp = loss(tp, xp, tg, op), lm = loss(tm, xm, tg, om);
        check_close("loss along (dtheta, dx)", t, (lp - lm) / (2 * h), FD_RTOL, FD_ATOL);
        for (int i = 0; i < BATCH * OUT; i++) check_close("outputs along (dtheta, dx)", douts[i], (op[i] - om[i]) / (2 * h), FD_RTOL, FD_ATOL);
    }
    return zyg_report();
}
