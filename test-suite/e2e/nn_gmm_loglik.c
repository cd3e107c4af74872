// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t.fast -ffast-math | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Gaussian mixture log-likelihood with diagonal covariances: mixture weights by softmax of
// alphas, per-component log densities into a scratch array, a max-shifted logsumexp per
// data point; gradients w.r.t. alphas, means and log-sigmas (data const).
#include "zyg_check.h"

enum { K = 3, D = 2, NPTS = 5 };

static double logsumexp(const double *v, int n) {
    double m = v[0];
    for (int i = 1; i < n; i++)
        if (v[i] > m)
            m = v[i];
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += exp(v[i] - m);
    return m + log(s);
}

double gmm_loglik(const double *alphas, const double *means, const double *logsig, const double *X, int n) {
    double lw[K], comp[K];
    double lse_a = logsumexp(alphas, K);
    for (int k = 0; k < K; k++)
        lw[k] = alphas[k] - lse_a;
    double ll = 0.0;
    for (int p = 0; p < n; p++) {
        for (int k = 0; k < K; k++) {
            double s = lw[k];
            for (int d = 0; d < D; d++) {
                double z = (X[p * D + d] - means[k * D + d]) * exp(-logsig[k * D + d]);
                s += -0.5 * z * z - logsig[k * D + d] - 0.9189385332046727;
            }
            comp[k] = s;
        }
        ll += logsumexp(comp, K);
    }
    return ll;
}

static double Xg[NPTS * D] = {0.1, 0.5, -1.2, 0.3, 0.8, -0.9, 2.0, 1.1, -0.4, -0.6};
enum { NP = K + K * D + K * D };
/* p = (alphas, means, logsig) */
static double ll_flat(const double *p) {
    double a[K], m[K * D], s[K * D];
    for (int i = 0; i < K; i++) a[i] = p[i];
    for (int i = 0; i < K * D; i++) m[i] = p[K + i], s[i] = p[K + K * D + i];
    return gmm_loglik(a, m, s, Xg, NPTS);
}

static double fd(double (*g)(const double *), const double *x, int n, int k) {
    double a[64], b[64], h = ZYG_STEP(x[k]);
    for (int i = 0; i < n; i++) a[i] = b[i] = x[i];
    a[k] += h;
    b[k] -= h;
    return (g(a) - g(b)) / (2 * h);
}

int main(void) {
    for (int q = 0; q < 2; q++) {
        double p[NP];
        for (int i = 0; i < NP; i++) p[i] = 0.8 * sin(1.23 * i + 0.4 + 2.1 * q);
        double a[K], m[K * D], s[K * D], da[K] = {0}, dm[K * D] = {0}, ds[K * D] = {0};
        for (int i = 0; i < K; i++) a[i] = p[i];
        for (int i = 0; i < K * D; i++) m[i] = p[K + i], s[i] = p[K + K * D + i];
        __enzyme_autodiff((void *)gmm_loglik, enzyme_dup, a, da, enzyme_dup, m, dm, enzyme_dup, s, ds, enzyme_const, Xg,
                          enzyme_const, NPTS);
        for (int i = 0; i < K; i++) check_close("dalpha", da[i], fd(ll_flat, p, NP, i), FD_RTOL, FD_ATOL);
        for (int i = 0; i < K * D; i++) {
            check_close("dmean", dm[i], fd(ll_flat, p, NP, K + i), FD_RTOL, FD_ATOL);
            check_close("dlogsig", ds[i], fd(ll_flat, p, NP, K + K * D + i), FD_RTOL, FD_ATOL);
        }
    }
    return zyg_report();
}
