// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// The hand-written derivatives of the ADBench objectives (bench/adbench/*_grad.h), which the
// benchmarks compare zyg against, checked here against central finite differences: GMM,
// bundle adjustment (every entry of the per-observation Jacobian, on both branches of the
// Rodrigues rotation, and the sum-of-squares gradient), LSTM and the hand model (plain and
// mirrored). Then zyg's gradients of GMM and LSTM against the hand-written ones, which
// agree to rounding.
#include "zyg_check.h"
#include "../../bench/adbench/gmm_grad.h"
#include "../../bench/adbench/ba_grad.h"
#include "../../bench/adbench/lstm_grad.h"
#include "../../bench/adbench/hand_grad.h"

static void check_gmm(void) {
    enum { D = 4, K = 3, N = 7, ICF = K * D * (D + 1) / 2, NP = K + K * D + ICF };
    double p[NP], g[NP], x[N * D], e;
    gmm_generate(D, K, N, 1, p, p + K, p + K + K * D, x);
    gmm_objective_grad(D, K, N, p, p + K, p + K + K * D, x, 1.3, 2, &e, g, g + K, g + K + K * D);
    check_close("gmm value", e, gmm_objective_value(D, K, N, p, p + K, p + K + K * D, x, 1.3, 2), 1e-14, 1e-14);
    for (int i = 0; i < NP; i++) {
        double q[NP];
        for (int j = 0; j < NP; j++) q[j] = p[j];
        double h = ZYG_STEP(p[i]);
        q[i] = p[i] + h;
        double hi = gmm_objective_value(D, K, N, q, q + K, q + K + K * D, x, 1.3, 2);
        q[i] = p[i] - h;
        double lo = gmm_objective_value(D, K, N, q, q + K, q + K + K * D, x, 1.3, 2);
        check_close("gmm grad", g[i], (hi - lo) / (2 * h), FD_RTOL, FD_ATOL);
    }
}

static double ba_entry(const double *cam, const double *X, double w, const double *feat, int row) {
    double err[2];
    ba_compute_reproj_error(cam, X, &w, feat, err);
    return err[row];
}

static void check_ba(void) {
    enum { NC = 3, NPT = 4, NO = 9, NCAM = NC * BA_NCAMPARAMS };
    double cams[NCAM], X[3 * NPT], w[NO], feats[2 * NO], dc[NCAM], dX[3 * NPT], dw[NO];
    int obs[2 * NO];
    ba_generate(NC, NPT, NO, 5, cams, X, w, obs, feats);
    for (int j = 0; j < 3; j++) /* the last camera takes Rodrigues' zero-rotation branch */
        cams[(NC - 1) * BA_NCAMPARAMS + BA_ROT_IDX + j] = 0;
    /* the Jacobian of each observation, entry by entry */
    for (int o = 0; o < NC; o++) {
        double cam[BA_NCAMPARAMS], pt[3], wo = w[o], err[2], J[2 * BA_JAC_COLS];
        for (int j = 0; j < BA_NCAMPARAMS; j++) cam[j] = cams[obs[2 * o] * BA_NCAMPARAMS + j];
        for (int j = 0; j < 3; j++) pt[j] = X[3 * obs[2 * o + 1] + j];
        ba_compute_reproj_error_jac(cam, pt, &wo, &feats[2 * o], err, J);
        for (int row = 0; row < 2; row++) {
            /* the same value, with the operations in another order */
            check_close("ba err", err[row], ba_entry(cam, pt, wo, &feats[2 * o], row), 1e-12, 1e-14);
            for (int col = 0; col < BA_JAC_COLS; col++) {
                double *v = col < BA_NCAMPARAMS ? &cam[col] : col < BA_NCAMPARAMS + 3 ? &pt[col - BA_NCAMPARAMS] : &wo;
                double v0 = *v, h = ZYG_STEP(v0);
                *v = v0 + h;
                double hi = ba_entry(cam, pt, wo, &feats[2 * o], row);
                *v = v0 - h;
                double lo = ba_entry(cam, pt, wo, &feats[2 * o], row);
                *v = v0;
                check_close("ba jacobian", J[row * BA_JAC_COLS + col], (hi - lo) / (2 * h), FD_RTOL, FD_ATOL);
            }
        }
    }
    double s = ba_objective_sq_grad(NC, NPT, NO, cams, X, w, obs, feats, dc, dX, dw);
    check_close("ba value", s, ba_objective_sq(NC, NPT, NO, cams, X, w, obs, feats), 1e-13, 0);
    double *arrs[3] = {cams, X, w}, *gs[3] = {dc, dX, dw};
    int ns[3] = {NCAM, 3 * NPT, NO};
    for (int a = 0; a < 3; a++)
        for (int i = 0; i < ns[a]; i++) {
            double v = arrs[a][i], h = ZYG_STEP(v);
            arrs[a][i] = v + h;
            double hi = ba_objective_sq(NC, NPT, NO, cams, X, w, obs, feats);
            arrs[a][i] = v - h;
            double lo = ba_objective_sq(NC, NPT, NO, cams, X, w, obs, feats);
            arrs[a][i] = v;
            check_close("ba grad", gs[a][i], (hi - lo) / (2 * h), FD_RTOL, FD_ATOL);
        }
}

static void check_lstm(void) {
    enum { L = 2, C = 5, B = 3, NM = 2 * L * 4 * B, NE = 3 * B };
    double mp[NM], ep[NE], st[2 * L * B], sq[C * B], dm[NM], de[NE], loss;
    lstm_generate(L, C, B, 9, mp, ep, st, sq);
    lstm_objective_grad(L, C, B, mp, ep, st, sq, &loss, dm, de);
    check_close("lstm value", loss, lstm_objective_value(L, C, B, mp, ep, st, sq), 1e-14, 1e-14);
    for (int i = 0; i < NM + NE; i++) {
        double *a = i < NM ? mp : ep;
        int k = i < NM ? i : i - NM;
        double v = a[k], h = ZYG_STEP(v);
        a[k] = v + h;
        double hi = lstm_objective_value(L, C, B, mp, ep, st, sq);
        a[k] = v - h;
        double lo = lstm_objective_value(L, C, B, mp, ep, st, sq);
        a[k] = v;
        check_close("lstm grad", i < NM ? dm[i] : de[i - NM], (hi - lo) / (2 * h), FD_RTOL, FD_ATOL);
    }
}

static void check_hand(void) {
    enum { NB = 22, NV = 40, NC = 30 };
    int parents[NB], corr[NC];
    double br[16 * NB], iba[16 * NB], bp[4 * NV], w[NB * NV], pts[3 * NC], theta[32], g[32];
    int nt = hand_n_theta(NB);
    for (int mir = 0; mir < 2; mir++) {
        hand_generate(NB, NV, NC, 3, parents, br, iba, bp, w, corr, pts, theta);
        adb_rng r = adb_rng_new(4);
        for (int i = 0; i < nt; i++) theta[i] += adb_rng_uniform(&r, -0.1, 0.1);
        double s = hand_objective_sq_grad(NB, parents, br, iba, NV, bp, w, mir, NC, corr, pts, theta, g);
        check_close("hand value", s, hand_objective_sq(NB, parents, br, iba, NV, bp, w, mir, NC, corr, pts, theta),
                    1e-13, 0);
        for (int i = 0; i < nt; i++) {
            double v = theta[i], h = ZYG_STEP(v);
            theta[i] = v + h;
            double hi = hand_objective_sq(NB, parents, br, iba, NV, bp, w, mir, NC, corr, pts, theta);
            theta[i] = v - h;
            double lo = hand_objective_sq(NB, parents, br, iba, NV, bp, w, mir, NC, corr, pts, theta);
            theta[i] = v;
            check_close(mir ? "hand grad (mirrored)" : "hand grad", g[i], (hi - lo) / (2 * h), FD_RTOL, FD_ATOL);
        }
    }
}

void __enzyme_autodiffv(void *, ...);

static void check_zyg_vs_manual(void) {
    {
        enum { D = 5, K = 4, N = 12, ICF = K * D * (D + 1) / 2, NP = K + K * D + ICF };
        double p[NP], g[NP], dp[NP] = {0}, x[N * D], e, err, derr = 1.0;
        gmm_generate(D, K, N, 8, p, p + K, p + K + K * D, x);
        gmm_objective_grad(D, K, N, p, p + K, p + K + K * D, x, 1.1, 1, &e, g, g + K, g + K + K * D);
        __enzyme_autodiffv((void *)gmm_objective, enzyme_const, D, enzyme_const, K, enzyme_const, N,
                           enzyme_dup, p, dp, enzyme_dup, p + K, dp + K, enzyme_dup, p + K + K * D, dp + K + K * D,
                           enzyme_const, x, enzyme_const, 1.1, enzyme_const, 1, enzyme_dup, &err, &derr);
        for (int i = 0; i < NP; i++)
            check_close("gmm zyg vs manual", dp[i], g[i], 1e-10, 1e-12);
    }
    {
        enum { L = 2, C = 4, B = 5, NM = 2 * L * 4 * B, NE = 3 * B };
        double mp[NM], ep[NE], st[2 * L * B], sq[C * B], dm[NM], de[NE], loss;
        double zm[NM] = {0}, ze[NE] = {0}, zloss, dloss = 1.0;
        lstm_generate(L, C, B, 10, mp, ep, st, sq);
        lstm_objective_grad(L, C, B, mp, ep, st, sq, &loss, dm, de);
        __enzyme_autodiffv((void *)lstm_objective, enzyme_const, L, enzyme_const, C, enzyme_const, B,
                           enzyme_dup, mp, zm, enzyme_dup, ep, ze, enzyme_const, st, enzyme_const, sq,
                           enzyme_dup, &zloss, &dloss);
        for (int i = 0; i < NM; i++)
            check_close("lstm zyg vs manual (main)", zm[i], dm[i], 1e-10, 1e-12);
        for (int i = 0; i < NE; i++)
            check_close("lstm zyg vs manual (extra)", ze[i], de[i], 1e-10, 1e-12);
    }
}

int main(void) {
    check_gmm();
    check_ba();
    check_lstm();
    check_hand();
    check_zyg_vs_manual();
    return zyg_report();
}
