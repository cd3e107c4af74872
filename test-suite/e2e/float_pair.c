// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Two float gradients: a struct of two floats is returned as <2 x float> on x86-64.
#include "zyg_check.h"

float f(float x, float y) { return x * y * y + expf(x - y); }

int main(void) {
    float pts[][2] = {{0.5f, 1.0f}, {-1.0f, 0.25f}, {1.5f, -0.5f}};
    for (int i = 0; i < 3; i++) {
        float x = pts[i][0], y = pts[i][1];
        zyg_gradf2 g = __enzyme_autodifff2((void *)f, x, y);
        check_close("df/dx", g.d0, y * y + exp(x - y), 1e-6, 1e-6);
        check_close("df/dy", g.d1, 2 * x * y - exp(x - y), 1e-6, 1e-6);
    }
    return zyg_report();
}
