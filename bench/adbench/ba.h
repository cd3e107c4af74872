/* ADBench objective 2: bundle adjustment (Srajer, Habib, Fitzgibbon 2018, section 3.2; the
 * reference is ADBench's src/cpp/shared/ba.h). Plain C over arrays; static functions only.
 *
 *   camera[11]: [r1 r2 r3 C1 C2 C3 f u0 v0 k1 k2]: Rodrigues angle-axis rotation r, camera
 *               centre C, focal length f, principal point (u0, v0), radial distortion k1, k2
 *   point[3], weight w, feature[2]
 *
 *   Xcam = R(r) (X - C);  p = Xcam[0:2] / Xcam[2];  p *= 1 + k1 |p|^2 + k2 |p|^4
 *   proj = f p + (u0, v0);  err = w (proj - feature);  weight error = 1 - w^2
 *
 * ba_objective fills all 2p reprojection errors and p weight errors of a problem with n
 * cameras, m points and p observations (obs[2i], obs[2i+1]: camera and point of observation i);
 * ba_objective_sq is their sum of squares, the scalar whose gradient is the normal-equation
 * right-hand side. */
#ifndef ZYG_ADBENCH_BA_H
#define ZYG_ADBENCH_BA_H
#include "common.h"

#define BA_NCAMPARAMS 11
#define BA_ROT_IDX 0
#define BA_C_IDX 3
#define BA_F_IDX 6
#define BA_X0_IDX 7
#define BA_RAD_IDX 9

ADB_FN double ba_sqsum(int n, const double *x) {
    double res = 0;
    for (int i = 0; i < n; i++)
        res = res + x[i] * x[i];
    return res;
}

ADB_FN void ba_cross(const double *a, const double *b, double *out) {
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

/* rotatedPt = R(rot) pt, Rodrigues' formula as Ceres evaluates it; first order at rot = 0 */
ADB_FN void ba_rodrigues_rotate_point(const double *rot, const double *pt, double *rotatedPt) {
    double sqtheta = ba_sqsum(3, rot);
    if (sqtheta != 0) {
        double theta, costheta, sintheta, theta_inverse, w[3], w_cross_pt[3], tmp;
        theta = sqrt(sqtheta);
        costheta = cos(theta);
        sintheta = sin(theta);
        theta_inverse = 1.0 / theta;
        for (int i = 0; i < 3; i++)
            w[i] = rot[i] * theta_inverse;
        ba_cross(w, pt, w_cross_pt);
        tmp = (w[0] * pt[0] + w[1] * pt[1] + w[2] * pt[2]) * (1. - costheta);
        for (int i = 0; i < 3; i++)
            rotatedPt[i] = pt[i] * costheta + w_cross_pt[i] * sintheta + w[i] * tmp;
    } else {
        double rot_cross_pt[3];
        ba_cross(rot, pt, rot_cross_pt);
        for (int i = 0; i < 3; i++)
            rotatedPt[i] = pt[i] + rot_cross_pt[i];
    }
}

ADB_FN void ba_radial_distort(const double *rad_params, double *proj) {
    double rsq = ba_sqsum(2, proj);
    double L = 1. + rad_params[0] * rsq + rad_params[1] * rsq * rsq;
    proj[0] = proj[0] * L;
    proj[1] = proj[1] * L;
}

ADB_FN void ba_project(const double *cam, const double *X, double *proj) {
    const double *C = &cam[BA_C_IDX];
    double Xo[3], Xcam[3];
    Xo[0] = X[0] - C[0];
    Xo[1] = X[1] - C[1];
    Xo[2] = X[2] - C[2];
    ba_rodrigues_rotate_point(&cam[BA_ROT_IDX], Xo, Xcam);
    proj[0] = Xcam[0] / Xcam[2];
    proj[1] = Xcam[1] / Xcam[2];
    ba_radial_distort(&cam[BA_RAD_IDX], proj);
    proj[0] = proj[0] * cam[BA_F_IDX] + cam[BA_X0_IDX + 0];
    proj[1] = proj[1] * cam[BA_F_IDX] + cam[BA_X0_IDX + 1];
}

/* err[2] = w (proj(cam, X) - feat) */
ADB_FN void ba_compute_reproj_error(const double *cam, const double *X, const double *w, const double *feat,
                                    double *err) {
    double proj[2];
    ba_project(cam, X, proj);
    err[0] = (*w) * (proj[0] - feat[0]);
    err[1] = (*w) * (proj[1] - feat[1]);
}

/* err[1] = 1 - w^2 (Zach's robust weight term) */
ADB_FN void ba_compute_zach_weight_error(const double *w, double *err) { *err = 1 - (*w) * (*w); }

/* n cameras cams[11n], m points X[3m], p observations: weights w[p], obs[2p] (camera, point),
 * feats[2p] -> reproj_err[2p], w_err[p] */
ADB_FN void ba_objective(int n, int m, int p, const double *cams, const double *X, const double *w,
                         const int *obs, const double *feats, double *reproj_err, double *w_err) {
    (void)n;
    (void)m;
    for (int i = 0; i < p; i++) {
        int camIdx = obs[i * 2 + 0];
        int ptIdx = obs[i * 2 + 1];
        ba_compute_reproj_error(&cams[camIdx * BA_NCAMPARAMS], &X[ptIdx * 3], &w[i], &feats[i * 2],
                                &reproj_err[2 * i]);
    }
    for (int i = 0; i < p; i++)
        ba_compute_zach_weight_error(&w[i], &w_err[i]);
}

/* sum of the squares of all 3p residuals of ba_objective */
ADB_FN double ba_objective_sq(int n, int m, int p, const double *cams, const double *X, const double *w,
                              const int *obs, const double *feats) {
    double *reproj_err = (double *)malloc(sizeof(double) * 2 * p);
    double *w_err = (double *)malloc(sizeof(double) * p);
    ba_objective(n, m, p, cams, X, w, obs, feats, reproj_err, w_err);
    double s = ba_sqsum(2 * p, reproj_err) + ba_sqsum(p, w_err);
    free(reproj_err);
    free(w_err);
    return s;
}

/* Fills cams[11n], X[3m], w[p], obs[2p] and feats[2p] deterministically from seed. As in
 * ADBench's generated problems, observation i sees camera i % n and point i % m. Cameras have
 * small rotations (|r| < 0.3), centres within 1 of the origin, focal lengths 300..500 and
 * distortion |k| < 0.05; points lie 4..8 in front of them; weights are 0.8..1.2; features are
 * the projections plus up to 2 pixels of noise. */
ADB_FN void ba_generate(int n, int m, int p, uint64_t seed, double *cams, double *X, double *w, int *obs,
                        double *feats) {
    adb_rng r = adb_rng_new(seed);
    for (int i = 0; i < n; i++) {
        double *c = &cams[i * BA_NCAMPARAMS];
        for (int j = 0; j < 3; j++)
            c[BA_ROT_IDX + j] = adb_rng_uniform(&r, -0.17, 0.17);
        for (int j = 0; j < 3; j++)
            c[BA_C_IDX + j] = adb_rng_uniform(&r, -1.0, 1.0);
        c[BA_F_IDX] = adb_rng_uniform(&r, 300.0, 500.0);
        c[BA_X0_IDX + 0] = adb_rng_uniform(&r, -5.0, 5.0);
        c[BA_X0_IDX + 1] = adb_rng_uniform(&r, -5.0, 5.0);
        c[BA_RAD_IDX + 0] = adb_rng_uniform(&r, -0.05, 0.05);
        c[BA_RAD_IDX + 1] = adb_rng_uniform(&r, -0.05, 0.05);
    }
    for (int i = 0; i < m; i++) {
        X[3 * i + 0] = adb_rng_uniform(&r, -2.0, 2.0);
        X[3 * i + 1] = adb_rng_uniform(&r, -2.0, 2.0);
        X[3 * i + 2] = adb_rng_uniform(&r, 5.0, 8.0);
    }
    for (int i = 0; i < p; i++) {
        obs[2 * i + 0] = i % n;
        obs[2 * i + 1] = i % m;
        w[i] = adb_rng_uniform(&r, 0.8, 1.2);
        double proj[2];
        ba_project(&cams[obs[2 * i] * BA_NCAMPARAMS], &X[3 * obs[2 * i + 1]], proj);
        feats[2 * i + 0] = proj[0] + adb_rng_uniform(&r, -2.0, 2.0);
        feats[2 * i + 1] = proj[1] + adb_rng_uniform(&r, -2.0, 2.0);
    }
}

#endif
