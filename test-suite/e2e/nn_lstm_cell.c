// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// RUN: %grad-run -O3 %s %t.o3 %march-v3 | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// One LSTM cell step: the four gates from W [x; h] + b (sigmoid input/forget/output,
// tanh candidate), c' = f c + i g, h' = o tanh(c'), written through dup output pointers
// and seeded by the caller; gradients w.r.t. W, b, x, h and c.
#include "zyg_check.h"

void __enzyme_autodiffv(void *, ...);

enum { X = 3, H = 4, G = 4 * H, K = X + H };

static double sigmoid(double z) { return 1.0 / (1.0 + exp(-z)); }

void lstm_step(const double *W, const double *b, const double *x, const double *h, const double *c, double *h_out,
               double *c_out) {
    double gates[G];
    for (int r = 0; r < G; r++) {
        double s = b[r];
        for (int j = 0; j < X; j++)
            s += W[r * K + j] * x[j];
        for (int j = 0; j < H; j++)
            s += W[r * K + X + j] * h[j];
        gates[r] = s;
    }
    for (int j = 0; j < H; j++) {
        double ig = sigmoid(gates[j]), fg = sigmoid(gates[H + j]);
        double og = sigmoid(gates[2 * H + j]), gg = tanh(gates[3 * H + j]);
        double cn = fg * c[j] + ig * gg;
        c_out[j] = cn;
        h_out[j] = og * tanh(cn);
    }
}

enum { NW = G * K, NZ = NW + G + X + H + H };
static double seed_h(int j) { return 1.0 + j; }
static double seed_c(int j) { return 0.5 - 0.3 * j; }
/* z = (W, b, x, h, c): the seeded outputs */
static double seeded(const double *z) {
    double ho[H], co[H], s = 0.0;
    lstm_step(z, z + NW, z + NW + G, z + NW + G + X, z + NW + G + X + H, ho, co);
    for (int j = 0; j < H; j++) s += seed_h(j) * ho[j] + seed_c(j) * co[j];
    return s;
}

static double fd(double (*g)(const double *), const double *x, int n, int k) {
    double a[NZ], b[NZ], h = ZYG_STEP(x[k]);
    for (int i = 0; i < n; i++) a[i] = b[i] = x[i];
    a[k] += h;
    b[k] -= h;
    return (g(a) - g(b)) / (2 * h);
}

int main(void) {
    for (int q = 0; q < 2; q++) {
        double z[NZ];
        for (int i = 0; i < NZ; i++) z[i] = 0.6 * sin(0.91 * i + 0.3 + 1.7 * q);
        double W[NW], b[G], x[X], h[H], c[H], ho[H], co[H];
        double dW[NW] = {0}, db[G] = {0}, dx[X] = {0}, dh[H] = {0}, dc[H] = {0}, dho[H], dco[H];
        for (int i = 0; i < NW; i++) W[i] = z[i];
        for (int i = 0; i < G; i++) b[i] = z[NW + i];
        for (int i = 0; i < X; i++) x[i] = z[NW + G + i];
        for (int i = 0; i < H; i++) h[i] = z[NW + G + X + i], c[i] = z[NW + G + X + H + i];
        for (int j = 0; j < H; j++) dho[j] = seed_h(j), dco[j] = seed_c(j);
        __enzyme_autodiffv((void *)lstm_step, enzyme_dup, W, dW, enzyme_dup, b, db, enzyme_dup, x, dx, enzyme_dup, h, dh,
                           enzyme_dup, c, dc, enzyme_dup, ho, dho, enzyme_dup, co, dco);
        double got[NZ];
        for (int i = 0; i < NW; i++) got[i] = dW[i];
        for (int i = 0; i < G; i++) got[NW + i] = db[i];
        for (int i = 0; i < X; i++) got[NW + G + i] = dx[i];
        for (int i = 0; i < H; i++) got[NW + G + X + i] = dh[i], got[NW + G + X + H + i] = dc[i];
        for (int k = 0; k < NZ; k++)
            check_close("dz", got[k], fd(seeded, z, NZ, k), FD_RTOL, FD_ATOL);
        for (int j = 0; j < H; j++) {
            check_close("dh_out consumed", dho[j], 0.0, 0, 0);
            check_close("dc_out consumed", dco[j], 0.0, 0, 0);
        }
    }
    return zyg_report();
}
