// REQUIRES: openmp
// RUN: %grad-run-omp -O0 %s %t -fopenmp | FileCheck %s
// RUN: %grad-run-omp -O2 %s %t -fopenmp | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// A GMM-like loss: the negative log-likelihood of points under a mixture of 1D Gaussians,
// a parallel loop over points with a log-sum-exp over components in each (a private
// array of the components' terms) and a `reduction(+)`; gradient in the means, the log
// scales and the weights' logits, shared by every iteration (their adjoints atomic).
#include <math.h>
#include "zyg_omp.h"

#define N 120
#define K 3
#define P (3 * K)

static double nll(const double *params, const double *x, int n) {
    const double *mu = params, *logs = params + K, *logit = params + 2 * K;
    double total = 0;
#pragma omp parallel for reduction(+ : total) schedule(dynamic, 16)
    for (int i = 0; i < n; i++) {
        double terms[K], top = -INFINITY;
        for (int k = 0; k < K; k++) {
            double z = (x[i] - mu[k]) * exp(-logs[k]);
            terms[k] = logit[k] - logs[k] - 0.5 * z * z;
            top = terms[k] > top ? terms[k] : top;
        }
        double s = 0;
        for (int k = 0; k < K; k++)
            s += exp(terms[k] - top);
        total -= top + log(s);
    }
    double norm = 0;
    for (int k = 0; k < K; k++)
        norm += exp(logit[k]);
    return total + n * log(norm);
}

static double x[N];
static double nll_of(const double *params, void *ctx) {
    (void)ctx;
    return nll(params, x, N);
}

int main(void) {
    double params[P] = {-1.0, 0.2, 1.5, 0.1, -0.3, 0.4, 0.3, -0.2, 0.1}, serial[P];
    for (int i = 0; i < N; i++)
        x[i] = 2.5 * sin(0.9 * i) + 0.3 * cos(2.1 * i);
    ZYG_FOR_TEAMS(t) {
        double dparams[P] = {0};
        __enzyme_autodiff((void *)nll, enzyme_dup, params, dparams, enzyme_const, x, enzyme_const, N);
        check_array_fd("nll", nll_of, 0, params, P, dparams);
        if (t == 1)
            for (int k = 0; k < P; k++)
                serial[k] = dparams[k];
        check_same_as_serial("nll, teams", dparams, serial, P);
    }
    return zyg_report();
}
