// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// The differentiated function calls printf on inactive values: the call passes through
// and prints once per gradient evaluation.
// CHECK-COUNT-3: trace k=3
// CHECK-NOT: FAIL
// CHECK: ALL OK
#include "zyg_check.h"

double f(double x, int k) {
    printf("trace k=%d\n", k);
    return x * x * k;
}

int main(void) {
    double xs[] = {1.0, -2.0, 0.5};
    for (int i = 0; i < 3; i++)
        check_close("df/dx", __enzyme_autodiff((void *)f, xs[i], 3), 6.0 * xs[i], EXACT_RTOL, EXACT_ATOL);
    return zyg_report();
}
