// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// More float spellings: fabsf fminf fmaxf floorf tanhf sinhf coshf asinf acosf atanf atan2f erff fmaf copysignf.
#include "zyg_check.h"

float f(float x) {
    return fabsf(x - 1.0f) + fminf(x, 0.5f) + fmaxf(x, 0.5f) * 2.0f + floorf(x * 4.0f) + tanhf(x) + sinhf(x) +
           coshf(x) + asinf(x * 0.5f) + acosf(x * 0.3f) + atanf(x) + atan2f(x, 2.0f) + erff(x) +
           fmaf(x, x, 1.0f) + copysignf(x, -1.0f);
}

int main(void) {
    double xs[] = {0.3, 0.8, 1.6};
    for (int i = 0; i < 3; i++) {
        double x = (float)xs[i];
        double t = tanh(x);
        double want = (x > 1 ? 1 : -1) + (x < 0.5 ? 1 : 0) + (x > 0.5 ? 2 : 0) + (1 - t * t) + cosh(x) + sinh(x) +
                      0.5 / sqrt(1 - x * x / 4) - 0.3 / sqrt(1 - 0.09 * x * x) + 1 / (1 + x * x) +
                      2.0 / (4.0 + x * x) + 2 / sqrt(M_PI) * exp(-x * x) + 2 * x - 1;
        check_close("df/dx", __enzyme_autodifff((void *)f, (float)x), want, 1e-5, 1e-5);
    }
    return zyg_report();
}
