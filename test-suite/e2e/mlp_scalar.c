// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// A tiny 2-4-1 tanh network written with scalars (no arrays): gradient of the squared
// error with respect to two weights, against finite differences.
#include "zyg_check.h"

double net(double w, double v, double x0, double x1, double target) {
    double h0 = tanh(w * x0 + 0.1 * x1), h1 = tanh(0.3 * x0 - w * x1);
    double h2 = tanh(v * x0 + w * x1 + 0.2), h3 = tanh(-0.4 * x0 + v);
    double out = 0.5 * h0 - 0.7 * h1 + v * h2 + 0.9 * h3;
    double e = out - target;
    return e * e;
}

static double net_wv(double w, double v) { return net(w, v, 0.8, -0.3, 0.25); }

int main(void) {
    double pts[][2] = {{0.5, -0.2}, {-1.1, 0.7}, {0.05, 1.5}};
    for (int i = 0; i < 3; i++) {
        double w = pts[i][0], v = pts[i][1];
        zyg_grad2 g = __enzyme_autodiff2((void *)net, w, v, enzyme_const, 0.8, enzyme_const, -0.3, enzyme_const, 0.25);
        check_close("dw", g.d0, FD2_0(net_wv, w, v), FD_RTOL, FD_ATOL);
        check_close("dv", g.d1, FD2_1(net_wv, w, v), FD_RTOL, FD_ATOL);
    }
    return zyg_report();
}
