// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Newton's iteration for sqrt(a), run until it converges: a data-dependent trip count.
// The derivative of the converged result is 1/(2 sqrt(a)).
#include "zyg_check.h"

double newton_sqrt(double a) {
    double x = a > 1.0 ? a : 1.0;
    int it = 0;
    while (fabs(x * x - a) > 1e-14 * a && it < 100) {
        x = 0.5 * (x + a / x);
        it++;
    }
    return x;
}

int main(void) {
    double as[] = {2.0, 0.3, 17.0, 1e4};
    for (int i = 0; i < 4; i++) {
        double a = as[i];
        double d = __enzyme_autodiff((void *)newton_sqrt, a);
        check_close("d sqrt", d, 0.5 / sqrt(a), 1e-8, 1e-12);
    }
    return zyg_report();
}
