// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// sin, cos, tan against their exact derivatives.
#include "zyg_check.h"

double fs(double x) { return sin(x); }
double fc(double x) { return cos(x); }
double ft(double x) { return tan(x); }

int main(void) {
    double xs[] = {0.3, -1.1, 2.5};
    for (int i = 0; i < 3; i++) {
        double x = xs[i];
        check_close("sin", __enzyme_autodiff((void *)fs, x), cos(x), 1e-14, 1e-15);
        check_close("cos", __enzyme_autodiff((void *)fc, x), -sin(x), 1e-14, 1e-15);
        check_close("tan", __enzyme_autodiff((void *)ft, x), 1.0 / (cos(x) * cos(x)), 1e-13, 1e-15);
    }
    return zyg_report();
}
