// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// ADBench's hand tracking objective, simple model (bench/adbench/hand.h), on a synthetic hand
// of NB bones, NV vertices and NC correspondences: the gradient of the sum of squared errors
// with respect to every pose parameter, and a vector-Jacobian product of the 3 NC errors
// (seeded through the output's `dup` shadow), against central finite differences; and the
// gradient against the hand-written one (bench/adbench/hand_grad.h), which agrees to rounding.
#include "zyg_check.h"
#include "../../bench/adbench/hand_grad.h"

void __enzyme_autodiffv(void *, ...);

#ifndef NB
#define NB 10 /* bones 0, 1 and two fingers of four: 14 pose parameters */
#define NV 30
#define NC 20
#endif
#define NT 64 /* room for hand_n_theta(NB) */

static int parents[NB], corr[NC], n_theta;
static double base_rel[16 * NB], inv_base_abs[16 * NB], base_pos[4 * NV], weights[NB * NV], points[3 * NC],
    seed_err[3 * NC];

static double value(const double *theta, int what) {
    if (what == 0)
        return hand_objective_sq(NB, parents, base_rel, inv_base_abs, NV, base_pos, weights, 0, NC, corr, points,
                                 theta);
    double err[3 * NC], s = 0;
    hand_objective(NB, parents, base_rel, inv_base_abs, NV, base_pos, weights, 0, NC, corr, points, theta, err);
    for (int i = 0; i < 3 * NC; i++) s += seed_err[i] * err[i];
    return s;
}

static double fd(const double *theta, int i, int what) {
    double t[NT];
    for (int j = 0; j < n_theta; j++) t[j] = theta[j];
    double v = theta[i], h = ZYG_STEP(v);
    t[i] = v + h;
    double hi = value(t, what);
    t[i] = v - h;
    double lo = value(t, what);
    return (hi - lo) / (2 * h);
}

int main(void) {
    double theta[NT];
    n_theta = hand_n_theta(NB);
    hand_generate(NB, NV, NC, 11, parents, base_rel, inv_base_abs, base_pos, weights, corr, points, theta);
    /* away from the pose that generated the points, so that the residuals are not just noise */
    adb_rng r = adb_rng_new(12);
    for (int i = 0; i < n_theta; i++) theta[i] += adb_rng_uniform(&r, -0.1, 0.1);
    char label[64];

    double dtheta[NT] = {0};
    __enzyme_autodiff((void *)hand_objective_sq, enzyme_const, NB, enzyme_const, parents, enzyme_const, base_rel,
                      enzyme_const, inv_base_abs, enzyme_const, NV, enzyme_const, base_pos, enzyme_const, weights,
                      enzyme_const, 0, enzyme_const, NC, enzyme_const, corr, enzyme_const, points,
                      enzyme_dup, theta, dtheta);
    for (int i = 0; i < n_theta; i++) {
        snprintf(label, sizeof label, "sq dtheta[%d]", i);
        check_close(label, dtheta[i], fd(theta, i, 0), FD_RTOL, FD_ATOL);
    }
    double manual[NT];
    hand_objective_sq_grad(NB, parents, base_rel, inv_base_abs, NV, base_pos, weights, 0, NC, corr, points, theta,
                           manual);
    for (int i = 0; i < n_theta; i++) {
        snprintf(label, sizeof label, "sq dtheta[%d] vs manual", i);
        check_close(label, dtheta[i], manual[i], 1e-10, 1e-12);
    }

    double err[3 * NC], derr[3 * NC], dtheta2[NT] = {0}, err_want[3 * NC];
    for (int i = 0; i < 3 * NC; i++) derr[i] = seed_err[i] = adb_rng_uniform(&r, -1, 1);
    __enzyme_autodiffv((void *)hand_objective, enzyme_const, NB, enzyme_const, parents, enzyme_const, base_rel,
                       enzyme_const, inv_base_abs, enzyme_const, NV, enzyme_const, base_pos, enzyme_const, weights,
                       enzyme_const, 0, enzyme_const, NC, enzyme_const, corr, enzyme_const, points,
                       enzyme_dup, theta, dtheta2, enzyme_dup, err, derr);
    hand_objective(NB, parents, base_rel, inv_base_abs, NV, base_pos, weights, 0, NC, corr, points, theta, err_want);
    for (int i = 0; i < 3 * NC; i++) {
        check_close("err = primal", err[i], err_want[i], 1e-14, 1e-14);
        check_close("derr consumed", derr[i], 0, 0, 0);
    }
    for (int i = 0; i < n_theta; i++) {
        snprintf(label, sizeof label, "vjp dtheta[%d]", i);
        check_close(label, dtheta2[i], fd(theta, i, 1), FD_RTOL, FD_ATOL);
    }
    return zyg_report();
}
