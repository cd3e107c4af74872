// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// float functions: floats pass through `...` as double; the gradient comes back as float
// (declared float) or double (declared double).
#include "zyg_check.h"

float f(float x) { return x * x * x - 2.0f * x + sinf(x); }

int main(void) {
    float xs[] = {0.5f, -1.25f, 2.0f};
    for (int i = 0; i < 3; i++) {
        float x = xs[i];
        double want = 3.0 * x * x - 2.0 + cos(x);
        check_close("float result", __enzyme_autodifff((void *)f, x), want, 1e-6, 1e-6);
        check_close("double result", __enzyme_autodiff((void *)f, x), want, 1e-6, 1e-6);
        check_close("fd", __enzyme_autodifff((void *)f, x), FDF1(f, x), FLOAT_RTOL, FLOAT_ATOL);
    }
    return zyg_report();
}
