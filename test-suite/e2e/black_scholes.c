// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Black-Scholes call price through erf: delta (d/dS) and vega (d/dsigma) against their
// closed forms N(d1) and S phi(d1) sqrt(T).
#include "zyg_check.h"

static double ncdf(double x) { return 0.5 * (1.0 + erf(x / sqrt(2.0))); }

double call_price(double s, double sigma, double k, double r, double t) {
    double d1 = (log(s / k) + (r + 0.5 * sigma * sigma) * t) / (sigma * sqrt(t));
    double d2 = d1 - sigma * sqrt(t);
    return s * ncdf(d1) - k * exp(-r * t) * ncdf(d2);
}

int main(void) {
    double cases[][5] = {{100, 0.2, 95, 0.01, 0.5}, {80, 0.35, 100, 0.03, 2.0}, {120, 0.15, 110, 0.0, 1.0}};
    for (int i = 0; i < 3; i++) {
        double s = cases[i][0], sig = cases[i][1], k = cases[i][2], r = cases[i][3], t = cases[i][4];
        zyg_grad2 g = __enzyme_autodiff2((void *)call_price, s, sig, enzyme_const, k, enzyme_const, r, enzyme_const, t);
        double d1 = (log(s / k) + (r + 0.5 * sig * sig) * t) / (sig * sqrt(t));
        check_close("delta", g.d0, ncdf(d1), 1e-12, 1e-14);
        check_close("vega", g.d1, s * exp(-d1 * d1 / 2) / sqrt(2 * M_PI) * sqrt(t), 1e-11, 1e-12);
    }
    return zyg_report();
}
