// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// The float spellings: sinf cosf tanf expf exp2f logf log2f log10f powf sqrtf cbrtf.
#include "zyg_check.h"

float f(float x) {
    return sinf(x) + cosf(x) + tanf(x * 0.5f) + expf(x) + exp2f(x) + logf(x) + log2f(x) + log10f(x) +
           powf(x, 1.5f) + sqrtf(x) + cbrtf(x);
}

int main(void) {
    double xs[] = {0.4, 1.1, 2.3};
    for (int i = 0; i < 3; i++) {
        double x = (float)xs[i];
        double want = cos(x) - sin(x) + 0.5 / (cos(x / 2) * cos(x / 2)) + exp(x) + exp2(x) * log(2.0) + 1 / x +
                      1 / (x * log(2.0)) + 1 / (x * log(10.0)) + 1.5 * sqrt(x) + 0.5 / sqrt(x) +
                      1 / (3 * cbrt(x) * cbrt(x));
        float got = __enzyme_autodifff((void *)f, (float)x);
        check_close("df/dx", got, want, 1e-5, 1e-5);
    }
    return zyg_report();
}
