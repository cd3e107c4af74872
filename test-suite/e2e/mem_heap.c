// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Heap scratch buffers (malloc, calloc, free) inside the differentiated function: their
// shadows come from calloc and are freed by the adjoint, after the primal's own free.
#include <stdlib.h>
#include "zyg_check.h"

double energy(const double *pos, int n) {
    double *scratch = malloc(n * sizeof(double));
    double *acc = calloc(n, sizeof(double));
    for (int i = 0; i < n; i++)
        scratch[i] = pos[i] * pos[i] + 0.1;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            if (i != j)
                acc[i] += scratch[j] / (1.0 + fabs(pos[i] - pos[j]));
    double e = 0.0;
    for (int i = 0; i < n; i++)
        e += acc[i] * scratch[i];
    free(scratch);
    free(acc);
    return e;
}

int main(void) {
    double p[5] = {0.3, -1.2, 0.8, 2.1, -0.4}, dp[5] = {0};
    __enzyme_autodiff((void *)energy, p, dp, 5);
    for (int k = 0; k < 5; k++) {
        double a[5], b[5], h = 1e-6;
        for (int i = 0; i < 5; i++) a[i] = b[i] = p[i];
        a[k] += h;
        b[k] -= h;
        check_close("dpos[k]", dp[k], (energy(a, 5) - energy(b, 5)) / (2 * h), FD_RTOL, FD_ATOL);
    }
    return zyg_report();
}
