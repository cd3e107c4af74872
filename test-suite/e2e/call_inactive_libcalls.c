// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// Known-inactive library calls inside differentiated code pass through unchanged and run
// once per evaluation: printf of inactive and of active values (a debugging print of the
// running sum), puts, fprintf(stderr, ...), and strlen of a name whose length (an int)
// scales the result.
// The gradient call prints exactly once, before main's marker:
// CHECK: model energy: start n=5
// CHECK-NEXT: model energy: sum=16.7
// CHECK-NEXT: model energy: done
// CHECK-NEXT: gradient done
// CHECK-NOT: FAIL
// CHECK: ALL OK
#include <string.h>
#include "zyg_check.h"

double model(const double *x, int n, const char *name) {
    printf("model %s: start n=%d\n", name, n);
    size_t len = strlen(name);
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        if (i == 2)
            fprintf(stderr, "model %s: halfway (i=%d)\n", name, i);
        s += x[i] * x[i] * (double)len + sin(x[i]);
    }
    printf("model %s: sum=%.1f\n", name, s);
    puts("model energy: done");
    return s;
}

enum { N = 5 };
static double model_q(const double *x) { return model(x, N, "energy"); }

static double fd(double (*g)(const double *), const double *x, int n, int k) {
    double a[64], b[64], h = ZYG_STEP(x[k]);
    for (int i = 0; i < n; i++) a[i] = b[i] = x[i];
    a[k] += h;
    b[k] -= h;
    return (g(a) - g(b)) / (2 * h);
}

int main(void) {
    double x[N] = {0.5, -1.2, 0.8, 0.3, -0.6}, dx[N] = {0};
    __enzyme_autodiff((void *)model, enzyme_dup, x, dx, enzyme_const, N, enzyme_const, "energy");
    printf("gradient done\n");
    /* strlen("energy") = 6: d/dx_k = 12 x_k + cos x_k */
    for (int k = 0; k < N; k++) {
        check_close("dx", dx[k], 12.0 * x[k] + cos(x[k]), EXACT_RTOL, EXACT_ATOL);
        check_close("dx (fd)", dx[k], fd(model_q, x, N, k), FD_RTOL, FD_ATOL);
    }
    return zyg_report();
}
