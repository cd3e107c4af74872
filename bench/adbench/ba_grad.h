/* Hand-written derivatives of bundle adjustment (bench/adbench/ba.h), for the benchmarks'
 * baseline: the 2 x 15 Jacobian of one reprojection error by the chain rule over explicit
 * small Jacobians (as ADBench's manual BA does), and the gradient of the sum of squares.
 * Static functions only. */
#ifndef ZYG_ADBENCH_BA_GRAD_H
#define ZYG_ADBENCH_BA_GRAD_H
#include "ba.h"

/* columns of the per-observation Jacobian: the camera's 11 parameters, the point's 3, w */
#define BA_JAC_COLS (BA_NCAMPARAMS + 3 + 1)

/* out (3x3, row-major) = A (3x3) B (3x3) */
ADB_FN void ba_mat33_mul(const double *A, const double *B, double *out) {
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            out[3 * i + j] = A[3 * i] * B[j] + A[3 * i + 1] * B[3 + j] + A[3 * i + 2] * B[6 + j];
}

/* rotatedPt = R(rot) pt as ba_rodrigues_rotate_point, with d rotatedPt / d rot and
 * d rotatedPt / d pt (3x3 each, row-major: J[3*i + j] = d out_i / d in_j) */
ADB_FN void ba_rodrigues_rotate_point_jac(const double *rot, const double *pt, double *rotatedPt, double *Jrot,
                                          double *Jpt) {
    double sqtheta = ba_sqsum(3, rot);
    if (sqtheta != 0) {
        double theta = sqrt(sqtheta), c = cos(theta), s = sin(theta), w[3], wxp[3];
        for (int i = 0; i < 3; i++)
            w[i] = rot[i] / theta;
        ba_cross(w, pt, wxp);
        double wp = w[0] * pt[0] + w[1] * pt[1] + w[2] * pt[2];
        for (int i = 0; i < 3; i++)
            rotatedPt[i] = pt[i] * c + wxp[i] * s + w[i] * wp * (1. - c);
        /* d/dpt: R = c I + s [w]x + (1 - c) w w^T */
        double wx[9] = {0, -w[2], w[1], w[2], 0, -w[0], -w[1], w[0], 0};
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                Jpt[3 * i + j] = (i == j ? c : 0) + s * wx[3 * i + j] + (1 - c) * w[i] * w[j];
        /* d/dw at fixed theta: s d(w x pt)/dw + (1 - c) (wp I + w pt^T), d(w x pt)/dw = -[pt]x */
        double Jw[9], dwdr[9];
        double px[9] = {0, -pt[2], pt[1], pt[2], 0, -pt[0], -pt[1], pt[0], 0};
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                Jw[3 * i + j] = -s * px[3 * i + j] + (1 - c) * ((i == j ? wp : 0) + w[i] * pt[j]);
        /* w = rot / theta: dw/drot = (I - w w^T) / theta */
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                dwdr[3 * i + j] = ((i == j ? 1.0 : 0.0) - w[i] * w[j]) / theta;
        ba_mat33_mul(Jw, dwdr, Jrot);
        /* d/dtheta at fixed w, times dtheta/drot = w^T */
        for (int i = 0; i < 3; i++) {
            double dth = -pt[i] * s + wxp[i] * c + w[i] * wp * s;
            for (int j = 0; j < 3; j++)
                Jrot[3 * i + j] += dth * w[j];
        }
    } else {
        double rxp[3];
        ba_cross(rot, pt, rxp);
        for (int i = 0; i < 3; i++)
            rotatedPt[i] = pt[i] + rxp[i];
        /* d(rot x pt)/drot = -[pt]x; d/dpt = I + [rot]x */
        double px[9] = {0, -pt[2], pt[1], pt[2], 0, -pt[0], -pt[1], pt[0], 0};
        double rx[9] = {0, -rot[2], rot[1], rot[2], 0, -rot[0], -rot[1], rot[0], 0};
        for (int i = 0; i < 9; i++) {
            Jrot[i] = -px[i];
            Jpt[i] = rx[i] + (i % 4 == 0 ? 1.0 : 0.0);
        }
    }
}

/* err[2] as ba_compute_reproj_error and J[2 * BA_JAC_COLS] (row-major): d err_r / d (cam[0..10],
 * X[0..2], w) */
ADB_FN void ba_compute_reproj_error_jac(const double *cam, const double *X, const double *w, const double *feat,
                                        double *err, double *J) {
    const double *C = &cam[BA_C_IDX], *rad = &cam[BA_RAD_IDX];
    double f = cam[BA_F_IDX], Xo[3], Xcam[3], Jrot[9], Jpt[9];
    for (int i = 0; i < 3; i++)
        Xo[i] = X[i] - C[i];
    ba_rodrigues_rotate_point_jac(&cam[BA_ROT_IDX], Xo, Xcam, Jrot, Jpt);
    /* p = Xcam[0:2] / Xcam[2] */
    double p[2] = {Xcam[0] / Xcam[2], Xcam[1] / Xcam[2]};
    double Jp[6] = {1 / Xcam[2], 0, -p[0] / Xcam[2], 0, 1 / Xcam[2], -p[1] / Xcam[2]};
    /* distortion: q = p L(|p|^2) */
    double rsq = p[0] * p[0] + p[1] * p[1], L = 1. + rad[0] * rsq + rad[1] * rsq * rsq;
    double dL = 2 * (rad[0] + 2 * rad[1] * rsq); /* dL/dp = dL * p */
    double q[2] = {p[0] * L, p[1] * L};
    double Jq[4] = {L + dL * p[0] * p[0], dL * p[0] * p[1], dL * p[1] * p[0], L + dL * p[1] * p[1]};
    double proj[2] = {q[0] * f + cam[BA_X0_IDX], q[1] * f + cam[BA_X0_IDX + 1]};
    for (int r = 0; r < 2; r++)
        err[r] = (*w) * (proj[r] - feat[r]);
    /* d err / d Xcam = w f Jq Jp (2x3) */
    double JX[6];
    for (int r = 0; r < 2; r++)
        for (int j = 0; j < 3; j++)
            JX[3 * r + j] = (*w) * f * (Jq[2 * r] * Jp[j] + Jq[2 * r + 1] * Jp[3 + j]);
    for (int r = 0; r < 2; r++) {
        double *row = &J[r * BA_JAC_COLS];
        for (int j = 0; j < 3; j++) {
            double drot = 0, dpt = 0;
            for (int m = 0; m < 3; m++) {
                drot += JX[3 * r + m] * Jrot[3 * m + j];
                dpt += JX[3 * r + m] * Jpt[3 * m + j];
            }
            row[BA_ROT_IDX + j] = drot;
            row[BA_C_IDX + j] = -dpt;
            row[BA_NCAMPARAMS + j] = dpt;
        }
        row[BA_F_IDX] = (*w) * q[r];
        row[BA_X0_IDX + 0] = r == 0 ? *w : 0.0;
        row[BA_X0_IDX + 1] = r == 1 ? *w : 0.0;
        row[BA_RAD_IDX + 0] = (*w) * f * p[r] * rsq;
        row[BA_RAD_IDX + 1] = (*w) * f * p[r] * rsq * rsq;
        row[BA_NCAMPARAMS + 3] = proj[r] - feat[r];
    }
}

/* The sum of squares of ba_objective_sq and its gradient: dcams[11n], dX[3m], dw[p]
 * (overwritten). */
ADB_FN double ba_objective_sq_grad(int n, int m, int p, const double *cams, const double *X, const double *w,
                                   const int *obs, const double *feats, double *dcams, double *dX, double *dw) {
    for (int i = 0; i < BA_NCAMPARAMS * n; i++)
        dcams[i] = 0.0;
    for (int i = 0; i < 3 * m; i++)
        dX[i] = 0.0;
    double s = 0.0;
    for (int i = 0; i < p; i++) {
        int camIdx = obs[2 * i], ptIdx = obs[2 * i + 1];
        double err[2], J[2 * BA_JAC_COLS];
        ba_compute_reproj_error_jac(&cams[camIdx * BA_NCAMPARAMS], &X[3 * ptIdx], &w[i], &feats[2 * i], err, J);
        double werr = 1 - w[i] * w[i];
        s += err[0] * err[0] + err[1] * err[1] + werr * werr;
        dw[i] = 2 * werr * (-2 * w[i]);
        for (int r = 0; r < 2; r++) {
            const double *row = &J[r * BA_JAC_COLS];
            for (int j = 0; j < BA_NCAMPARAMS; j++)
                dcams[camIdx * BA_NCAMPARAMS + j] += 2 * err[r] * row[j];
            for (int j = 0; j < 3; j++)
                dX[3 * ptIdx + j] += 2 * err[r] * row[BA_NCAMPARAMS + j];
            dw[i] += 2 * err[r] * row[BA_NCAMPARAMS + 3];
        }
    }
    return s;
}

#endif
