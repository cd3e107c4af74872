// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// __builtin_powi becomes llvm.powi with an integer exponent (no derivative in it).
#include "zyg_check.h"

double f(double x, int n) { return __builtin_powi(x, n) + __builtin_powi(x, 3); }

int main(void) {
    double xs[] = {1.3, -0.8, 2.5};
    int ns[] = {2, 5, -2};
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 3; k++) {
            double x = xs[i];
            int n = ns[k];
            check_close("d powi", __enzyme_autodiff((void *)f, x, n), n * pow(x, n - 1) + 3 * x * x, 1e-12, 1e-14);
        }
    return zyg_report();
}
