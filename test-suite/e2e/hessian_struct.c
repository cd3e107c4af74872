// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// RUN: %grad-run -O3 %s %t.native -march=native | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Hessian-vector products, forward over reverse, with respect to parameters held in a struct
// passed by pointer (a Gaussian bump's amplitude, centre, width and a polynomial baseline in
// an array member), fitted to constant data. The struct's shadow carries the direction in and
// the gradient's tangent out. Checked against central differences of the gradient along v,
// at three parameter sets and three directions.
#include <string.h>
#include "zyg_check.h"

typedef struct {
    double amp, centre, width;
    double base[3];
} params;
#define NP 6
#define ND 7

static const double ts[ND] = {-1.0, -0.5, 0.0, 0.4, 0.9, 1.5, 2.0};
static const double ys[ND] = {0.2, 0.8, 1.6, 1.9, 1.1, 0.5, 0.3};

static double predict(const params *p, double t) {
    double z = (t - p->centre) / p->width;
    return p->amp * exp(-0.5 * z * z) + p->base[0] + t * (p->base[1] + t * p->base[2]);
}

static double loss(const params *p, int n) {
    double s = 0;
    for (int k = 0; k < n; k++) {
        double r = predict(p, ts[k]) - ys[k];
        s += r * r;
    }
    return s;
}

static void grad(const params *p, params *dp, int n) { __enzyme_autodiff((void *)loss, enzyme_dup, p, dp, enzyme_const, n); }

static void as_array(const params *p, double *a) { memcpy(a, p, sizeof *p); }
static params from_array(const double *a) {
    params p;
    memcpy(&p, a, sizeof p);
    return p;
}

int main(void) {
    params ps[3] = {{1.5, 0.3, 0.6, {0.1, 0.0, 0.0}}, {2.0, -0.2, 1.1, {0.3, -0.1, 0.05}}, {0.8, 1.0, 0.4, {-0.2, 0.4, -0.1}}};
    double vs[3][NP] = {{1, 0, 0, 0, 0, 0}, {0, 0, 1, 0, 0, 0}, {0.2, -0.5, 0.3, 0.7, -0.4, 0.9}};
    for (int q = 0; q < 3; q++)
        for (int d = 0; d < 3; d++) {
            params p = ps[q], v = from_array(vs[d]), dp = {0}, hv = {0};
            __enzyme_fwddiff((void *)grad, enzyme_dup, &p, &v, enzyme_dup, &dp, &hv, enzyme_const, ND);
            double x[NP], got[NP], h = 1e-6, xp[NP], xm[NP], gpa[NP], gma[NP];
            as_array(&p, x);
            as_array(&hv, got);
            for (int i = 0; i < NP; i++) {
                xp[i] = x[i] + h * vs[d][i];
                xm[i] = x[i] - h * vs[d][i];
            }
            params pp = from_array(xp), pm = from_array(xm), gp = {0}, gm = {0};
            grad(&pp, &gp, ND);
            grad(&pm, &gm, ND);
            as_array(&gp, gpa);
            as_array(&gm, gma);
            for (int i = 0; i < NP; i++) check_close("Hv vs FD of the gradient", got[i], (gpa[i] - gma[i]) / (2 * h), FD_RTOL, FD_ATOL);
            check_close("direction is left as it was", v.width, vs[d][2], 0, 0);
        }
    return zyg_report();
}
