// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// RUN: %grad-run -O3 %s %t.native -march=native | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Hessian-vector products, forward over reverse, of (1) a stable logsumexp (the max
// subtracted first), whose Hessian is diag(p) - p p^T with p = softmax(x): checked against
// that closed form and against central differences of the gradient; (2) a softmax
// cross-entropy loss of a linear classifier W (K x D) over a few samples, checked against
// central differences of the gradient along v. Three points, three directions each.
#include <string.h>
#include "zyg_check.h"

#define N 6
#define K 3
#define D 4
#define S 5

static double lse(const double *x, int n) {
    double m = x[0];
    for (int i = 1; i < n; i++)
        if (x[i] > m) m = x[i];
    double s = 0;
    for (int i = 0; i < n; i++) s += exp(x[i] - m);
    return m + log(s);
}

static void lse_grad(const double *x, double *dx, int n) {
    __enzyme_autodiff((void *)lse, enzyme_dup, x, dx, enzyme_const, n);
}

static const double data[S][D] = {{0.5, -1.0, 0.3, 1.2}, {-0.7, 0.2, 0.9, -0.4}, {1.1, 0.8, -0.6, 0.05},
                                  {0.0, -0.3, 0.4, 0.7},  {-1.2, 1.4, 0.1, -0.9}};
static const int label[S] = {0, 2, 1, 1, 2};

/* mean cross-entropy of softmax(W z) */
static double xent(const double *W) {
    double loss = 0;
    for (int s = 0; s < S; s++) {
        double logit[K], m = -1e300, sum = 0;
        for (int k = 0; k < K; k++) {
            logit[k] = 0;
            for (int d = 0; d < D; d++) logit[k] += W[k * D + d] * data[s][d];
            if (logit[k] > m) m = logit[k];
        }
        for (int k = 0; k < K; k++) sum += exp(logit[k] - m);
        loss += m + log(sum) - logit[label[s]];
    }
    return loss / S;
}

static void xent_grad(const double *W, double *dW) { __enzyme_autodiff((void *)xent, enzyme_dup, W, dW); }

int main(void) {
    double pts[3][N] = {{0.1, 0.2, 0.3, 0.4, 0.5, 0.6}, {2.0, -1.0, 3.5, 0.0, -2.5, 1.0}, {-5, 4, 4.2, -0.3, 0.8, 3.9}};
    double dirs[3][N] = {{1, 0, 0, 0, 0, 0}, {0, 0, 1, 0, 0, 0}, {0.5, -0.3, 0.8, 0.1, -0.9, 0.4}};
    for (int p = 0; p < 3; p++)
        for (int d = 0; d < 3; d++) {
            const double *x = pts[p], *v = dirs[d];
            double dx[N] = {0}, hv[N] = {0};
            __enzyme_fwddiff((void *)lse_grad, enzyme_dup, x, v, enzyme_dup, dx, hv, enzyme_const, N);
            double h = 1e-6, xp[N], xm[N], gp[N] = {0}, gm[N] = {0}, pr[N], z = 0, pv = 0;
            for (int i = 0; i < N; i++) {
                xp[i] = x[i] + h * v[i];
                xm[i] = x[i] - h * v[i];
                z += exp(x[i]);
            }
            for (int i = 0; i < N; i++) {
                pr[i] = exp(x[i]) / z;
                pv += pr[i] * v[i];
            }
            lse_grad(xp, gp, N);
            lse_grad(xm, gm, N);
            for (int i = 0; i < N; i++) {
                check_close("logsumexp Hv vs diag(p) - p p^T", hv[i], pr[i] * v[i] - pr[i] * pv, 1e-10, 1e-13);
                check_close("logsumexp Hv vs FD of the gradient", hv[i], (gp[i] - gm[i]) / (2 * h), FD_RTOL, FD_ATOL);
                check_close("logsumexp gradient is p", dx[i], pr[i], 1e-12, 1e-14);
            }
        }

    double Ws[3][K * D], vs[3][K * D];
    for (int p = 0; p < 3; p++)
        for (int i = 0; i < K * D; i++) {
            Ws[p][i] = p * sin(0.7 * i + p) - 0.2 * p;
            vs[p][i] = p == 0 ? (i == 5) : cos(1.3 * i * p);
        }
    for (int p = 0; p < 3; p++)
        for (int d = 0; d < 3; d++) {
            const double *W = Ws[p], *v = vs[d];
            double dW[K * D] = {0}, hv[K * D] = {0};
            __enzyme_fwddiff((void *)xent_grad, enzyme_dup, W, v, enzyme_dup, dW, hv);
            double h = 1e-6, Wp[K * D], Wm[K * D], gp[K * D] = {0}, gm[K * D] = {0};
            for (int i = 0; i < K * D; i++) {
                Wp[i] = W[i] + h * v[i];
                Wm[i] = W[i] - h * v[i];
            }
            xent_grad(Wp, gp);
            xent_grad(Wm, gm);
            for (int i = 0; i < K * D; i++)
                check_close("cross-entropy Hv vs FD of the gradient", hv[i], (gp[i] - gm[i]) / (2 * h), FD_RTOL, FD_ATOL);
        }
    return zyg_report();
}
