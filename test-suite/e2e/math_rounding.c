// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// floor, ceil, trunc, round have derivative zero; the surrounding terms do not.
#include "zyg_check.h"

double f(double x) { return floor(x * 3) + ceil(x) * x + trunc(x / 2) + round(x * 5) + x; }

int main(void) {
    double xs[] = {0.33, 1.77, -2.41};
    for (int i = 0; i < 3; i++) {
        double x = xs[i];
        check_close("d", __enzyme_autodiff((void *)f, x), ceil(x) + 1.0, EXACT_RTOL, EXACT_ATOL);
    }
    return zyg_report();
}
