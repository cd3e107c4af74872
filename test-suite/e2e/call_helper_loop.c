// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// A helper called in a loop: each call's tape is kept on the caller's stack.
#include "zyg_check.h"

__attribute__((noinline)) double step(double state, double rate) {
    double s = state;
    for (int i = 0; i < 3; i++)
        s = s + rate * sin(s);
    return s;
}

double run(double x, double rate, int steps) {
    double s = x;
    for (int i = 0; i < steps; i++)
        s = step(s, rate) * 0.9;
    return s;
}

static double run_x(double x, double r) { return run(x, r, 9); }

int main(void) {
    double pts[][2] = {{0.4, 0.1}, {1.3, -0.2}, {-0.8, 0.3}};
    for (int i = 0; i < 3; i++) {
        double x = pts[i][0], r = pts[i][1];
        zyg_grad2 g = __enzyme_autodiff2((void *)run, x, r, 9);
        check_close("d/dx", g.d0, FD2_0(run_x, x, r), FD_RTOL, FD_ATOL);
        check_close("d/drate", g.d1, FD2_1(run_x, x, r), FD_RTOL, FD_ATOL);
    }
    return zyg_report();
}
