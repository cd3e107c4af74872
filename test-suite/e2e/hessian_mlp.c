// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// RUN: %grad-run -O3 %s %t.native -march=native | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Hessian-vector products of a small MLP's squared-error loss with respect to all its
// weights (one array: W1 3x4, b1, W2 3x3, b2, w3, b3; dense + tanh layers, a linear output),
// forward over reverse. The data are constant. Each H v is checked against central
// differences of the gradient along v, at three weight vectors and three directions; the
// gradient the HVP call writes is checked against the plain gradient.
#include <string.h>
#include "zyg_check.h"

#define IN 4
#define H1 3
#define H2 3
#define NS 4
#define NW (H1 * IN + H1 + H2 * H1 + H2 + H2 + 1)

static const double xs[NS][IN] = {{0.5, -0.2, 0.1, 0.9}, {-0.4, 0.7, 0.3, -0.1}, {0.2, 0.2, -0.8, 0.4}, {1.0, -0.5, 0.6, 0.0}};
static const double ys[NS] = {0.3, -0.6, 0.1, 0.8};

/* always inlined: forward over reverse through a helper with a loop that stays a call gives
 * a wrong H v or an error today (reported with a reproducer) */
__attribute__((always_inline)) static inline void dense_tanh(const double *W, const double *b, const double *in, double *out, int nout, int nin) {
    for (int o = 0; o < nout; o++) {
        double s = b[o];
        for (int i = 0; i < nin; i++) s += W[o * nin + i] * in[i];
        out[o] = tanh(s);
    }
}

static double loss(const double *w) {
    const double *W1 = w, *b1 = W1 + H1 * IN, *W2 = b1 + H1, *b2 = W2 + H2 * H1, *w3 = b2 + H2, *b3 = w3 + H2;
    double total = 0;
    for (int s = 0; s < NS; s++) {
        double a1[H1], a2[H2];
        dense_tanh(W1, b1, xs[s], a1, H1, IN);
        dense_tanh(W2, b2, a1, a2, H2, H1);
        double out = *b3;
        for (int i = 0; i < H2; i++) out += w3[i] * a2[i];
        double r = out - ys[s];
        total += 0.5 * r * r;
    }
    return total;
}

static void grad(const double *w, double *dw) { __enzyme_autodiff((void *)loss, enzyme_dup, w, dw); }

int main(void) {
    double ws[3][NW], vs[3][NW];
    for (int i = 0; i < NW; i++) {
        ws[0][i] = 0.1 * sin(1.0 + i);
        ws[1][i] = 0.8 * cos(0.3 * i) - 0.2;
        ws[2][i] = 1.5 * sin(2.1 * i + 0.4);
        vs[0][i] = i == 3;
        vs[1][i] = i == NW - 2;
        vs[2][i] = cos(0.9 * i + 0.2);
    }
    for (int p = 0; p < 3; p++)
        for (int d = 0; d < 3; d++) {
            const double *w = ws[p], *v = vs[d];
            double dw[NW] = {0}, hv[NW] = {0}, g[NW] = {0};
            __enzyme_fwddiff((void *)grad, enzyme_dup, w, v, enzyme_dup, dw, hv);
            grad(w, g);
            double h = 1e-6, wp[NW], wm[NW], gp[NW] = {0}, gm[NW] = {0};
            for (int i = 0; i < NW; i++) {
                wp[i] = w[i] + h * v[i];
                wm[i] = w[i] - h * v[i];
            }
            grad(wp, gp);
            grad(wm, gm);
            for (int i = 0; i < NW; i++) {
                check_close("Hv vs FD of the gradient", hv[i], (gp[i] - gm[i]) / (2 * h), FD_RTOL, FD_ATOL);
                check_close("dw is the gradient", dw[i], g[i], 1e-13, 1e-15);
            }
        }
    return zyg_report();
}
