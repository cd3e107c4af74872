// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// A local array indexed by a loop variable stays in memory (an alloca); its shadow memory
// lives in the tape, so it outlives the primal.
#include "zyg_check.h"

double horner_table(double a, double b) {
    double t[6];
    for (int i = 0; i < 6; i++)
        t[i] = a * i + b * b;
    double s = 0.0;
    for (int i = 5; i >= 0; i--)
        s = s * 0.3 + t[i] * t[(i + 2) % 6];
    return s;
}

int main(void) {
    double pts[][2] = {{0.3, 0.7}, {-1.2, 0.4}, {2.0, -0.5}};
    for (int i = 0; i < 3; i++) {
        double a = pts[i][0], b = pts[i][1];
        zyg_grad2 g = __enzyme_autodiff2((void *)horner_table, a, b);
        CHECK_FD2(horner_table, a, b, g);
    }
    return zyg_report();
}
