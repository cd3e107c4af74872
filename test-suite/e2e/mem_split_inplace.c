// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Split mode over memory updated in place: __enzyme_augmentfwd runs a function that
// rewrites its dup array (and a heap scratch buffer), the caller keeps the updated array,
// and __enzyme_reverse later needs the overwritten values, which only the tape holds.
// Two tapes alive at once, reversed in the other order, with result seeds other than 1.
#include <stdlib.h>
#include "zyg_check.h"

typedef struct { void *tape; double result; } aug_t;
aug_t __enzyme_augmentfwd(void *, ...);
void __enzyme_reverse(void *, ...);

enum { N = 6 };

double relax(double *x, int n, int sweeps) {
    double *tmp = malloc(n * sizeof(double));
    for (int s = 0; s < sweeps; s++) {
        for (int i = 0; i < n; i++)
            tmp[i] = x[(i + n - 1) % n] + x[(i + 1) % n];
        for (int i = 0; i < n; i++)
            x[i] = 0.5 * x[i] + 0.25 * sin(tmp[i]) * x[i];
    }
    double e = 0.0;
    for (int i = 0; i < n; i++)
        e += x[i] * x[i] * (i + 1);
    free(tmp);
    return e;
}

static double relax_copy(const double *x0) {
    double x[N];
    for (int i = 0; i < N; i++) x[i] = x0[i];
    return relax(x, N, 3);
}

static double fd(double (*g)(const double *), const double *x, int n, int k) {
    double a[64], b[64], h = ZYG_STEP(x[k]);
    for (int i = 0; i < n; i++) a[i] = b[i] = x[i];
    a[k] += h;
    b[k] -= h;
    return (g(a) - g(b)) / (2 * h);
}

int main(void) {
    double x0[2][N] = {{0.9, -0.4, 1.3, 0.2, -1.1, 0.6}, {-0.3, 1.5, 0.1, -0.8, 0.7, 1.2}};
    double x1[N], x2[N], dx1[N] = {0}, dx2[N] = {0};
    for (int i = 0; i < N; i++) x1[i] = x0[0][i], x2[i] = x0[1][i];
    aug_t t1 = __enzyme_augmentfwd((void *)relax, enzyme_dup, x1, dx1, enzyme_const, N, enzyme_const, 3);
    aug_t t2 = __enzyme_augmentfwd((void *)relax, enzyme_dup, x2, dx2, enzyme_const, N, enzyme_const, 3);
    check_close("result 1", t1.result, relax_copy(x0[0]), EXACT_RTOL, EXACT_ATOL);
    check_close("result 2", t2.result, relax_copy(x0[1]), EXACT_RTOL, EXACT_ATOL);
    /* x1, x2 now hold the relaxed values, as the forward pass left them */
    __enzyme_reverse((void *)relax, enzyme_dup, x2, dx2, enzyme_const, N, enzyme_const, 3, -0.5, t2.tape);
    __enzyme_reverse((void *)relax, enzyme_dup, x1, dx1, enzyme_const, N, enzyme_const, 3, 2.0, t1.tape);
    for (int k = 0; k < N; k++) {
        check_close("dx1", dx1[k], 2.0 * fd(relax_copy, x0[0], N, k), FD_RTOL, FD_ATOL);
        check_close("dx2", dx2[k], -0.5 * fd(relax_copy, x0[1], N, k), FD_RTOL, FD_ATOL);
    }
    return zyg_report();
}
