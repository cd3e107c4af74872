// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Bundle-adjustment reprojection error for one point (as in ADBench's BA): Rodrigues
// rotation (with its small-angle branch), projection, radial distortion k1 r^2 + k2 r^4 and
// focal length, residuals written through a dup output pointer with seeds 1 + i;
// gradients w.r.t. the 11 camera parameters [r(3) C(3) f u0 v0 k1 k2] and the point.
#include "zyg_check.h"

void __enzyme_autodiffv(void *, ...);

static void rodrigues_rotate(const double *rot, const double *X, double *out) {
    double t2 = rot[0] * rot[0] + rot[1] * rot[1] + rot[2] * rot[2];
    if (t2 > 1e-12) {
        double theta = sqrt(t2), c = cos(theta), s = sin(theta);
        double w[3] = {rot[0] / theta, rot[1] / theta, rot[2] / theta};
        double wx[3] = {w[1] * X[2] - w[2] * X[1], w[2] * X[0] - w[0] * X[2], w[0] * X[1] - w[1] * X[0]};
        double wd = w[0] * X[0] + w[1] * X[1] + w[2] * X[2];
        for (int i = 0; i < 3; i++)
            out[i] = X[i] * c + wx[i] * s + w[i] * wd * (1.0 - c);
    } else {
        double rx[3] = {rot[1] * X[2] - rot[2] * X[1], rot[2] * X[0] - rot[0] * X[2], rot[0] * X[1] - rot[1] * X[0]};
        for (int i = 0; i < 3; i++)
            out[i] = X[i] + rx[i];
    }
}

void reproj(const double *cam, const double *X, const double *obs, double *err) {
    double Xc[3], Xr[3];
    for (int i = 0; i < 3; i++)
        Xc[i] = X[i] - cam[3 + i];
    rodrigues_rotate(cam, Xc, Xr);
    double p0 = Xr[0] / Xr[2], p1 = Xr[1] / Xr[2];
    double r2 = p0 * p0 + p1 * p1;
    double dist = 1.0 + cam[9] * r2 + cam[10] * r2 * r2;
    err[0] = cam[6] * dist * p0 + cam[7] - obs[0];
    err[1] = cam[6] * dist * p1 + cam[8] - obs[1];
}

static const double obs[2] = {0.3, -0.2};
/* z = (cam[11], X[3]); the seeded residuals */
static double seeded(const double *z) {
    double err[2];
    reproj(z, z + 11, obs, err);
    return 1.0 * err[0] + 2.0 * err[1];
}

static double fd(double (*g)(const double *), const double *x, int n, int k) {
    double a[64], b[64], h = ZYG_STEP(x[k]);
    for (int i = 0; i < n; i++) a[i] = b[i] = x[i];
    a[k] += h;
    b[k] -= h;
    return (g(a) - g(b)) / (2 * h);
}

int main(void) {
    double pts[3][14] = {
        {0.1, -0.2, 0.15, 0.3, -0.1, -4.0, 1.2, 0.05, -0.03, 0.08, -0.01, 0.5, 0.4, 1.0},
        {-0.4, 0.3, 0.6, -0.5, 0.2, -3.0, 0.9, -0.02, 0.04, -0.05, 0.02, -0.3, 0.8, 0.6},
        {1e-8, -2e-8, 1e-8, 0.1, 0.1, -5.0, 1.0, 0.0, 0.0, 0.1, 0.01, 0.2, -0.4, 0.5}}; /* small-angle branch */
    for (int q = 0; q < 3; q++) {
        double cam[11], X[3], dcam[11] = {0}, dX[3] = {0}, err[2], derr[2] = {1.0, 2.0};
        for (int i = 0; i < 11; i++) cam[i] = pts[q][i];
        for (int i = 0; i < 3; i++) X[i] = pts[q][11 + i];
        __enzyme_autodiffv((void *)reproj, enzyme_dup, cam, dcam, enzyme_dup, X, dX, enzyme_const, obs, enzyme_dup, err,
                           derr);
        for (int k = 0; k < 11; k++) {
            if (q == 2 && k < 3)
                continue; /* FD steps of 1e-6 would leave the small-angle branch: checked below */
            check_close("dcam", dcam[k], fd(seeded, pts[q], 14, k), FD_RTOL, FD_ATOL);
        }
        for (int k = 0; k < 3; k++)
            check_close("dX", dX[k], fd(seeded, pts[q], 14, 11 + k), FD_RTOL, FD_ATOL);
        if (q == 2) {
            /* in the small-angle branch the rotation is linear in rot: compare with a tiny
               symmetric step that stays inside the branch */
            for (int k = 0; k < 3; k++) {
                double a[14], b[14], h = 1e-9;
                for (int i = 0; i < 14; i++) a[i] = b[i] = pts[q][i];
                a[k] += h;
                b[k] -= h;
                /* loosened: h = 1e-9 leaves ~1e-7 relative rounding error in the difference */
                check_close("dcam rot (small angle)", dcam[k], (seeded(a) - seeded(b)) / (2 * h), 1e-5, 1e-6);
            }
        }
    }
    return zyg_report();
}
