// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// ADBench's GMM objective (bench/adbench/gmm.h) at a larger size, d = 10, k = 8, n = 40, with
// ADBench's Wishart parameters (gamma = 1, m = 0): the gradient with respect to alphas, means
// and icf (448 components), each against central finite differences.
#include "zyg_check.h"
#include "../../bench/adbench/gmm.h"

void __enzyme_autodiffv(void *, ...);

enum { D = 10, K = 8, N = 40, ICF = K * D * (D + 1) / 2, NP = K + K * D + ICF };
static double x[N * D];

/* params: alphas, then means, then icf */
static double value(const double *p) {
    return gmm_objective_value(D, K, N, p, p + K, p + K + K * D, x, GMM_WISHART_GAMMA, GMM_WISHART_M);
}

int main(void) {
    double p[NP], dp[NP] = {0}, err = 0, derr = 1.0;
    gmm_generate(D, K, N, 2024, p, p + K, p + K + K * D, x);
    __enzyme_autodiffv((void *)gmm_objective, enzyme_const, D, enzyme_const, K, enzyme_const, N,
                       enzyme_dup, p, dp, enzyme_dup, p + K, dp + K, enzyme_dup, p + K + K * D, dp + K + K * D,
                       enzyme_const, x, enzyme_const, GMM_WISHART_GAMMA, enzyme_const, GMM_WISHART_M,
                       enzyme_dup, &err, &derr);
    check_close("err = primal", err, value(p), 1e-14, 1e-14);
    char label[64];
    for (int i = 0; i < NP; i++) {
        double q[NP];
        for (int j = 0; j < NP; j++) q[j] = p[j];
        double h = ZYG_STEP(p[i]);
        q[i] = p[i] + h;
        double hi = value(q);
        q[i] = p[i] - h;
        double lo = value(q);
        snprintf(label, sizeof label, "%s[%d]", i < K ? "dalphas" : i < K + K * D ? "dmeans" : "dicf",
                 i < K ? i : i < K + K * D ? i - K : i - K - K * D);
        check_close(label, dp[i], (hi - lo) / (2 * h), FD_RTOL, FD_ATOL);
    }
    return zyg_report();
}
