/* ADBench objective 1: Gaussian mixture model with a Wishart prior on the inverse
 * covariances (Srajer, Habib, Fitzgibbon 2018, section 3.1; the reference is ADBench's
 * src/cpp/shared/gmm.h). Written in plain C over arrays; static functions only.
 *
 *   d: dimension, k: number of components, n: number of points
 *   alphas[k]          log mixture weights, unnormalised (weights = softmax(alphas))
 *   means[k*d]         component means, component ik at means[ik*d]
 *   icf[k*d*(d+1)/2]   inverse covariance factors: per component, first the d logs of the
 *                      diagonal of Q (the inverse Cholesky factor, Sigma^-1 = Q^T Q), then
 *                      the d(d-1)/2 strictly lower entries column by column
 *   x[n*d]             data points
 *   wishart_gamma, wishart_m: the Wishart prior's parameters
 *   err[1]             the objective, exactly as the reference defines it:
 *
 *   err = -n d/2 log(2 pi) + sum_i logsumexp_k(alpha_k + sum(log diag Q_k)
 *                                              - 1/2 |Q_k (x_i - mu_k)|^2)
 *         - n logsumexp(alpha)
 *         + sum_k (gamma^2/2 |Q_k|_F^2 - m sum(log diag Q_k)) - k C(gamma, m, d)
 *
 *   (the first three terms are the mixture's log likelihood of x; the last is the reference's
 *   Wishart term, with C = n' d (log gamma - log(2)/2) - log Gamma_d(n'/2), n' = d + m + 1)
 *
 * Scratch memory is malloc'ed inside gmm_objective (as the reference's std::vectors). */
#ifndef ZYG_ADBENCH_GMM_H
#define ZYG_ADBENCH_GMM_H
#include "common.h"

ADB_FN int gmm_icf_size(int d) { return d * (d + 1) / 2; }

/* log of the multivariate gamma function Gamma_p(a) (constant: no active input). */
ADB_FN double gmm_log_gamma_distrib(double a, double p) {
    double out = 0.25 * p * (p - 1) * log(ADB_PI);
    for (int j = 1; j <= p; j++)
        out = out + lgamma(a + 0.5 * (1 - j));
    return out;
}

/* The reference's arr_max has two spellings: `m = fmax(m, x[i])` and, for some tools,
 * `if (m < x[i]) m = x[i]`. The same values; we use the second, because clang -O2
 * vectorises the first into llvm.vector.reduce.fmax, which zyg does not differentiate yet. */
ADB_FN double gmm_arr_max(int n, const double *x) {
    double m = x[0];
    for (int i = 1; i < n; i++)
        if (m < x[i])
            m = x[i];
    return m;
}

ADB_FN double gmm_sqnorm(int n, const double *x) {
    double res = 0.0;
    for (int i = 0; i < n; i++)
        res = res + x[i] * x[i];
    return res;
}

/* out = x - y */
ADB_FN void gmm_subtract(int d, const double *x, const double *y, double *out) {
    for (int id = 0; id < d; id++)
        out[id] = x[id] - y[id];
}

/* log(sum(exp(x))), shifted by the maximum for stability */
ADB_FN double gmm_logsumexp(int n, const double *x) {
    double mx = gmm_arr_max(n, x);
    double semx = 0.0;
    for (int i = 0; i < n; i++)
        semx = semx + exp(x[i] - mx);
    return log(semx) + mx;
}

/* sum_qs[ik] = sum of the log diagonal of Q_ik; Qdiags[ik*d + id] = its exp */
ADB_FN void gmm_preprocess_qs(int d, int k, const double *icf, double *sum_qs, double *Qdiags) {
    int icf_sz = gmm_icf_size(d);
    for (int ik = 0; ik < k; ik++) {
        sum_qs[ik] = 0.0;
        for (int id = 0; id < d; id++) {
            double q = icf[ik * icf_sz + id];
            sum_qs[ik] = sum_qs[ik] + q;
            Qdiags[ik * d + id] = exp(q);
        }
    }
}

/* out = Q x, with Q lower triangular given by its diagonal and its strictly lower part
 * (column by column) */
ADB_FN void gmm_qtimesx(int d, const double *Qdiag, const double *ltri, const double *x, double *out) {
    for (int id = 0; id < d; id++)
        out[id] = Qdiag[id] * x[id];
    int Lparamsidx = 0;
    for (int i = 0; i < d; i++)
        for (int j = i + 1; j < d; j++) {
            out[j] = out[j] + ltri[Lparamsidx] * x[i];
            Lparamsidx++;
        }
}

ADB_FN double gmm_log_wishart_prior(int p, int k, double wishart_gamma, int wishart_m, const double *sum_qs,
                                    const double *Qdiags, const double *icf) {
    int n = p + wishart_m + 1;
    int icf_sz = gmm_icf_size(p);
    double C = n * p * (log(wishart_gamma) - 0.5 * log(2)) - gmm_log_gamma_distrib(0.5 * n, p);
    double out = 0.0;
    for (int ik = 0; ik < k; ik++) {
        double frobenius = gmm_sqnorm(p, &Qdiags[ik * p]) + gmm_sqnorm(icf_sz - p, &icf[ik * icf_sz + p]);
        out = out + 0.5 * wishart_gamma * wishart_gamma * frobenius - wishart_m * sum_qs[ik];
    }
    return out - k * C;
}

ADB_FN void gmm_objective(int d, int k, int n, const double *alphas, const double *means, const double *icf,
                          const double *x, double wishart_gamma, int wishart_m, double *err) {
    const double CONSTANT = -n * d * 0.5 * log(2 * ADB_PI);
    int icf_sz = gmm_icf_size(d);
    double *Qdiags = (double *)malloc(sizeof(double) * d * k);
    double *sum_qs = (double *)malloc(sizeof(double) * k);
    double *xcentered = (double *)malloc(sizeof(double) * d);
    double *Qxcentered = (double *)malloc(sizeof(double) * d);
    double *main_term = (double *)malloc(sizeof(double) * k);

    gmm_preprocess_qs(d, k, icf, sum_qs, Qdiags);

    double slse = 0.0;
    for (int ix = 0; ix < n; ix++) {
        for (int ik = 0; ik < k; ik++) {
            gmm_subtract(d, &x[ix * d], &means[ik * d], xcentered);
            gmm_qtimesx(d, &Qdiags[ik * d], &icf[ik * icf_sz + d], xcentered, Qxcentered);
            main_term[ik] = alphas[ik] + sum_qs[ik] - 0.5 * gmm_sqnorm(d, Qxcentered);
        }
        slse = slse + gmm_logsumexp(k, main_term);
    }

    double lse_alphas = gmm_logsumexp(k, alphas);
    *err = CONSTANT + slse - n * lse_alphas;
    *err = *err + gmm_log_wishart_prior(d, k, wishart_gamma, wishart_m, sum_qs, Qdiags, icf);

    free(Qdiags);
    free(sum_qs);
    free(xcentered);
    free(Qxcentered);
    free(main_term);
}

/* The same objective returning its value (for callers that want a scalar function). */
ADB_FN double gmm_objective_value(int d, int k, int n, const double *alphas, const double *means,
                                  const double *icf, const double *x, double wishart_gamma, int wishart_m) {
    double err;
    gmm_objective(d, k, n, alphas, means, icf, x, wishart_gamma, wishart_m, &err);
    return err;
}

/* The Wishart parameters of ADBench's data files. */
#define GMM_WISHART_GAMMA 1.0
#define GMM_WISHART_M 0

/* Fills alphas[k], means[k*d], icf[k*icf_size(d)] and x[n*d] deterministically from seed:
 * alphas and the log diagonal in [-1, 1) and [-0.5, 0.5), the lower entries in [-0.5, 0.5),
 * means and points in [0, 1) (components and points overlap, so every term matters). */
ADB_FN void gmm_generate(int d, int k, int n, uint64_t seed, double *alphas, double *means, double *icf,
                         double *x) {
    adb_rng r = adb_rng_new(seed);
    int icf_sz = gmm_icf_size(d);
    for (int ik = 0; ik < k; ik++)
        alphas[ik] = adb_rng_uniform(&r, -1.0, 1.0);
    for (int i = 0; i < k * d; i++)
        means[i] = adb_rng_uniform(&r, 0.0, 1.0);
    for (int i = 0; i < k * icf_sz; i++)
        icf[i] = adb_rng_uniform(&r, -0.5, 0.5);
    for (int i = 0; i < n * d; i++)
        x[i] = adb_rng_uniform(&r, 0.0, 1.0);
}

#endif
