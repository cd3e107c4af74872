// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// ADBench's bundle adjustment, one observation (bench/adbench/ba.h): the 2 x 15 Jacobian of
// the reprojection error (11 camera parameters, 3 point coordinates, the weight) as two
// requests whose output shadows are seeded with (1, 0) and (0, 1), and the derivative of the
// weight error 1 - w^2, against central finite differences of every entry. One observation
// per generated camera, so that different rotations and distortions are exercised; the last
// camera's rotation is zero, Rodrigues' first-order branch (its derivative at 0 is the limit
// of the general branch's, which the finite differences see). Each row is also compared with
// the hand-written Jacobian (bench/adbench/ba_grad.h), which agrees to rounding.
#include "zyg_check.h"
#include "../../bench/adbench/ba_grad.h"

void __enzyme_autodiffv(void *, ...);

enum { NC = 4, NP = 4, NO = 4 };

static double reproj(const double *cam, const double *X, double w, const double *feat, int row) {
    double err[2];
    ba_compute_reproj_error(cam, X, &w, feat, err);
    return err[row];
}

int main(void) {
    double cams[NC * BA_NCAMPARAMS], X[3 * NP], w[NO], feats[2 * NO];
    int obs[2 * NO];
    ba_generate(NC, NP, NO, 3, cams, X, w, obs, feats);
    for (int j = 0; j < 3; j++)
        cams[(NC - 1) * BA_NCAMPARAMS + BA_ROT_IDX + j] = 0.0;
    char label[64];
    for (int o = 0; o < NO; o++) {
        const double *cam = &cams[obs[2 * o] * BA_NCAMPARAMS], *pt = &X[3 * obs[2 * o + 1]], *feat = &feats[2 * o];
        for (int row = 0; row < 2; row++) {
            double dcam[BA_NCAMPARAMS] = {0}, dpt[3] = {0}, dw = 0, err[2], derr[2] = {0, 0};
            derr[row] = 1.0;
            __enzyme_autodiffv((void *)ba_compute_reproj_error, enzyme_dup, cam, dcam, enzyme_dup, pt, dpt,
                               enzyme_dup, &w[o], &dw, enzyme_const, feat, enzyme_dup, err, derr);
            check_close("err = primal", err[row], reproj(cam, pt, w[o], feat, row), 1e-14, 1e-14);
            check_close("derr consumed", derr[row], 0, 0, 0);
            for (int i = 0; i < BA_NCAMPARAMS; i++) {
                double a[BA_NCAMPARAMS], b[BA_NCAMPARAMS];
                for (int j = 0; j < BA_NCAMPARAMS; j++) a[j] = b[j] = cam[j];
                double h = ZYG_STEP(cam[i]);
                a[i] += h;
                b[i] -= h;
                snprintf(label, sizeof label, "obs %d row %d dcam[%d]", o, row, i);
                check_close(label, dcam[i], (reproj(a, pt, w[o], feat, row) - reproj(b, pt, w[o], feat, row)) / (2 * h),
                            FD_RTOL, FD_ATOL);
            }
            for (int i = 0; i < 3; i++) {
                double a[3], b[3];
                for (int j = 0; j < 3; j++) a[j] = b[j] = pt[j];
                double h = ZYG_STEP(pt[i]);
                a[i] += h;
                b[i] -= h;
                snprintf(label, sizeof label, "obs %d row %d dX[%d]", o, row, i);
                check_close(label, dpt[i], (reproj(cam, a, w[o], feat, row) - reproj(cam, b, w[o], feat, row)) / (2 * h),
                            FD_RTOL, FD_ATOL);
            }
            double e2[2], J[2 * BA_JAC_COLS];
            ba_compute_reproj_error_jac(cam, pt, &w[o], feat, e2, J);
            for (int i = 0; i < BA_JAC_COLS; i++) {
                double got = i < BA_NCAMPARAMS ? dcam[i] : i < BA_NCAMPARAMS + 3 ? dpt[i - BA_NCAMPARAMS] : dw;
                snprintf(label, sizeof label, "obs %d row %d J[%d] vs manual", o, row, i);
                check_close(label, got, J[row * BA_JAC_COLS + i], 1e-10, 1e-12);
            }
            snprintf(label, sizeof label, "obs %d row %d dw", o, row);
            double h = ZYG_STEP(w[o]);
            check_close(label, dw, (reproj(cam, pt, w[o] + h, feat, row) - reproj(cam, pt, w[o] - h, feat, row)) / (2 * h),
                        FD_RTOL, FD_ATOL);
        }
        double dw = 0, werr, dwerr = 1.0;
        __enzyme_autodiffv((void *)ba_compute_zach_weight_error, enzyme_dup, &w[o], &dw, enzyme_dup, &werr, &dwerr);
        check_close("w_err = primal", werr, 1 - w[o] * w[o], 1e-15, 0);
        check_close("dw_err/dw", dw, -2 * w[o], EXACT_RTOL, EXACT_ATOL);
    }
    return zyg_report();
}
