/* Hand-written gradient of the GMM objective (bench/adbench/gmm.h), for the benchmarks'
 * baseline: one forward sweep over the points that keeps nothing but per-component sums,
 * with the adjoint of each term computed in place. Static functions only. */
#ifndef ZYG_ADBENCH_GMM_GRAD_H
#define ZYG_ADBENCH_GMM_GRAD_H
#include "gmm.h"

/* Writes the objective to *err and its gradient to dalphas[k], dmeans[k*d], dicf[k*icf_sz]
 * (overwritten, not accumulated). x, wishart_gamma and wishart_m are constants. */
ADB_FN void gmm_objective_grad(int d, int k, int n, const double *alphas, const double *means, const double *icf,
                               const double *x, double wishart_gamma, int wishart_m, double *err, double *dalphas,
                               double *dmeans, double *dicf) {
    const double CONSTANT = -n * d * 0.5 * log(2 * ADB_PI);
    int icf_sz = gmm_icf_size(d);
    double *Qdiags = (double *)malloc(sizeof(double) * d * k);
    double *sum_qs = (double *)malloc(sizeof(double) * k);
    double *xcentered = (double *)malloc(sizeof(double) * d * k);
    double *Qxcentered = (double *)malloc(sizeof(double) * d * k);
    double *main_term = (double *)malloc(sizeof(double) * k);
    double *dsum_qs = (double *)calloc(k, sizeof(double));
    double *dQdiags = (double *)calloc(d * k, sizeof(double));

    gmm_preprocess_qs(d, k, icf, sum_qs, Qdiags);
    for (int i = 0; i < k; i++)
        dalphas[i] = 0.0;
    for (int i = 0; i < k * d; i++)
        dmeans[i] = 0.0;
    for (int i = 0; i < k * icf_sz; i++)
        dicf[i] = 0.0;

    double slse = 0.0;
    for (int ix = 0; ix < n; ix++) {
        for (int ik = 0; ik < k; ik++) {
            double *xc = &xcentered[ik * d], *y = &Qxcentered[ik * d];
            gmm_subtract(d, &x[ix * d], &means[ik * d], xc);
            gmm_qtimesx(d, &Qdiags[ik * d], &icf[ik * icf_sz + d], xc, y);
            main_term[ik] = alphas[ik] + sum_qs[ik] - 0.5 * gmm_sqnorm(d, y);
        }
        double lse = gmm_logsumexp(k, main_term);
        slse += lse;
        /* d lse / d main_term[ik] = softmax */
        for (int ik = 0; ik < k; ik++) {
            double r = exp(main_term[ik] - lse);
            const double *xc = &xcentered[ik * d], *y = &Qxcentered[ik * d];
            const double *Qdiag = &Qdiags[ik * d], *ltri = &icf[ik * icf_sz + d];
            double *dltri = &dicf[ik * icf_sz + d], *dQdiag = &dQdiags[ik * d], *dmu = &dmeans[ik * d];
            dalphas[ik] += r;
            dsum_qs[ik] += r;
            /* main_term -= 0.5 |y|^2: dy = -r y; y = Q xc; dxc = Q^T dy; dmu = -dxc */
            for (int id = 0; id < d; id++) {
                double dy = -r * y[id];
                dQdiag[id] += dy * xc[id];
                dmu[id] -= Qdiag[id] * dy;
            }
            int Lparamsidx = 0;
            for (int i = 0; i < d; i++)
                for (int j = i + 1; j < d; j++) {
                    double dy = -r * y[j];
                    dltri[Lparamsidx] += dy * xc[i];
                    dmu[i] -= ltri[Lparamsidx] * dy;
                    Lparamsidx++;
                }
        }
    }

    double lse_alphas = gmm_logsumexp(k, alphas);
    for (int ik = 0; ik < k; ik++)
        dalphas[ik] -= n * exp(alphas[ik] - lse_alphas);
    *err = CONSTANT + slse - n * lse_alphas + gmm_log_wishart_prior(d, k, wishart_gamma, wishart_m, sum_qs, Qdiags, icf);

    /* the prior: 0.5 gamma^2 (|Qdiag|^2 + |ltri|^2) - m sum_qs per component */
    double g2 = wishart_gamma * wishart_gamma;
    for (int ik = 0; ik < k; ik++) {
        dsum_qs[ik] -= wishart_m;
        for (int id = 0; id < d; id++)
            dQdiags[ik * d + id] += g2 * Qdiags[ik * d + id];
        for (int j = d; j < icf_sz; j++)
            dicf[ik * icf_sz + j] += g2 * icf[ik * icf_sz + j];
        /* sum_qs = sum of the log diagonal; Qdiag = exp(log diagonal) */
        for (int id = 0; id < d; id++)
            dicf[ik * icf_sz + id] += dsum_qs[ik] + dQdiags[ik * d + id] * Qdiags[ik * d + id];
    }

    free(Qdiags);
    free(sum_qs);
    free(xcentered);
    free(Qxcentered);
    free(main_term);
    free(dsum_qs);
    free(dQdiags);
}

#endif
