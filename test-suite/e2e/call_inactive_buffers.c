// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Known-inactive library calls given pointers into differentiated memory: a heap label
// written with snprintf and measured with strlen, a dup array compared with memcmp and
// inspected by fwrite to a sink, a random draw steering nothing. They pass through.
#include <stdlib.h>
#include <string.h>
#include "zyg_check.h"

double f(double *x, int n) {
    char *label = malloc(32);
    snprintf(label, 32, "n=%d", n);
    double s = (double)strlen(label);  // a constant: no derivative
    FILE *sink = fopen("/dev/null", "w");
    if (sink) {
        fwrite(x, sizeof *x, n, sink);
        fclose(sink);
    }
    if (memcmp(x, x + 1, sizeof *x) != 0)
        s += 1.0;
    for (int i = 0; i < n; i++)
        s += x[i] * x[i] * (i + 1);
    free(label);
    return s;
}

int main(void) {
    double x[4] = {0.5, -1.5, 2.0, 0.25}, dx[4] = {0};
    __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, 4);
    for (int k = 0; k < 4; k++)
        check_close("df/dx", dx[k], 2.0 * x[k] * (k + 1), EXACT_RTOL, EXACT_ATOL);
    return zyg_report();
}
