// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// ADBench's GMM objective (bench/adbench/gmm.h): the gradient with respect to alphas, means
// and icf, through a `dup` output seeded with 1, against central finite differences of every
// component. Wishart parameters other than ADBench's (1, 0) so that every prior term counts.
#include "zyg_check.h"
#include "../../bench/adbench/gmm.h"

void __enzyme_autodiffv(void *, ...);

enum { D = 3, K = 4, N = 10, ICF = K * D * (D + 1) / 2 };
static const double GAMMA = 1.3;
static const int WM = 2;
static double x[N * D];

static double value(const double *a, const double *m, const double *q) {
    return gmm_objective_value(D, K, N, a, m, q, x, GAMMA, WM);
}

/* central difference in component i of array `which` (0 alphas, 1 means, 2 icf) */
static double fd(const double *a, const double *m, const double *q, int which, int i) {
    double ca[K], cm[K * D], cq[ICF], hi, lo;
    for (int j = 0; j < K; j++) ca[j] = a[j];
    for (int j = 0; j < K * D; j++) cm[j] = m[j];
    for (int j = 0; j < ICF; j++) cq[j] = q[j];
    double *p = which == 0 ? ca : which == 1 ? cm : cq;
    double v = p[i], h = ZYG_STEP(v);
    p[i] = v + h;
    hi = value(ca, cm, cq);
    p[i] = v - h;
    lo = value(ca, cm, cq);
    return (hi - lo) / (2 * h);
}

int main(void) {
    double alphas[K], means[K * D], icf[ICF];
    gmm_generate(D, K, N, 42, alphas, means, icf, x);
    double da[K] = {0}, dm[K * D] = {0}, dq[ICF] = {0}, err = 0, derr = 1.0;
    __enzyme_autodiffv((void *)gmm_objective, enzyme_const, D, enzyme_const, K, enzyme_const, N,
                       enzyme_dup, alphas, da, enzyme_dup, means, dm, enzyme_dup, icf, dq,
                       enzyme_const, x, enzyme_const, GAMMA, enzyme_const, WM, enzyme_dup, &err, &derr);
    check_close("err = primal", err, value(alphas, means, icf), 1e-14, 1e-14);
    check_close("derr consumed", derr, 0.0, 0, 0);
    for (int i = 0; i < K; i++)
        check_close("dalphas", da[i], fd(alphas, means, icf, 0, i), FD_RTOL, FD_ATOL);
    for (int i = 0; i < K * D; i++)
        check_close("dmeans", dm[i], fd(alphas, means, icf, 1, i), FD_RTOL, FD_ATOL);
    for (int i = 0; i < ICF; i++)
        check_close("dicf", dq[i], fd(alphas, means, icf, 2, i), FD_RTOL, FD_ATOL);
    return zyg_report();
}
