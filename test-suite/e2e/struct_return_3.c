// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Three gradients come back in a struct of three doubles, which the C ABI returns
// through memory (sret); four mixed ones too.
#include "zyg_check.h"

typedef struct { double a; float b; double c; double d; } grad4;
grad4 __enzyme_autodiff4(void *, ...);

double f(double x, double y, double z) { return x * y * z + x * x - z / y; }
double g(double x, float y, double z, double w) { return x * y + z * w * w + sin(x * w); }

int main(void) {
    double pts[][3] = {{1.0, 2.0, 3.0}, {-0.5, 1.5, 0.25}, {2.0, -0.75, 1.0}};
    for (int i = 0; i < 3; i++) {
        double x = pts[i][0], y = pts[i][1], z = pts[i][2];
        zyg_grad3 d = __enzyme_autodiff3((void *)f, x, y, z);
        check_close("df/dx", d.d0, y * z + 2 * x, EXACT_RTOL, EXACT_ATOL);
        check_close("df/dy", d.d1, x * z + z / (y * y), EXACT_RTOL, EXACT_ATOL);
        check_close("df/dz", d.d2, x * y - 1 / y, EXACT_RTOL, EXACT_ATOL);
        float yf = (float)y;
        grad4 e = __enzyme_autodiff4((void *)g, x, yf, z, 0.5);
        check_close("dg/dx", e.a, yf + 0.5 * cos(x * 0.5), 1e-12, 1e-14);
        check_close("dg/dy", e.b, x, 1e-6, 1e-7);
        check_close("dg/dz", e.c, 0.25, EXACT_RTOL, EXACT_ATOL);
        check_close("dg/dw", e.d, 2 * z * 0.5 + x * cos(x * 0.5), 1e-12, 1e-14);
    }
    return zyg_report();
}
