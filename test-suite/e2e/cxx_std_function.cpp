// RUN: %grad-run -O2 %s %t | FileCheck %s
// RUN: %grad-run -O3 %s %t | FileCheck %s
// RUN: not %grad-run -O0 %s %t 2>&1 | FileCheck %s --check-prefix=O0
// RUN: %plugin-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// std::function holding lambdas (one capturing an active value by copy) and a free function, called through its type-erased invoker: a
// call through a function pointer, which zyg dispatches to each `_M_invoke` the module has.
// Exceptions on. Reverse and forward mode against closed forms, several points.
// At -O0, clang copies the lambda's captured double into std::function's storage as a
// 64-bit integer, which zyg refuses (it cannot tell a float's bits from an integer's there):
// O0: zyg: error: {{.*}}copies 64 bits of differentiated memory as an integer
// (A lambda capturing a pointer to differentiated memory is refused at -O2 too: the
// std::function's storage may hold that pointer or other memory.)
#include "zyg_check.h"
#include <functional>

static double call_with(const std::function<double(double)> &f, double x) { return f(x); }

static double cube(double t) { return t * t * t; }

static double model(double x, double w) {
    std::function<double(double)> f = [w](double t) { return w * sin(t); };
    std::function<double(double)> g = [](double t) { return t * t; };
    std::function<double(double)> h = cube;
    return call_with(f, x) + call_with(g, x * w) + call_with(h, w);
}

static double dmodel_dx(double x, double w) { return w * cos(x) + 2 * x * w * w; }
static double dmodel_dw(double x, double w) { return sin(x) + 2 * x * x * w + 3 * w * w; }

int main() {
    const double pts[3][2] = {{0.7, 1.3}, {-0.4, 0.6}, {1.1, -0.8}};
    for (int k = 0; k < 3; k++) {
        double x = pts[k][0], w = pts[k][1];
        double dx = __enzyme_autodiff((void *)model, x, enzyme_const, w);
        double dw = __enzyme_autodiff((void *)model, enzyme_const, x, w);
        check_close("std::function d/dx", dx, dmodel_dx(x, w), 1e-12, 1e-12);
        check_close("std::function d/dw", dw, dmodel_dw(x, w), 1e-12, 1e-12);
        double t = __enzyme_fwddiff((void *)model, x, 1.0, w, 0.5);
        check_close("std::function tangent", t, dmodel_dx(x, w) + 0.5 * dmodel_dw(x, w), 1e-12, 1e-12);
    }
    return zyg_report();
}
