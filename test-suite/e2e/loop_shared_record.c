// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Loops whose bodies are several blocks: at -O2 (rotated loops) the blocks after an inner
// loop and a branch run once per outer iteration and write their alphas into the record the
// outer loop's header pushes (test-suite/ir/tape_shared_record.ll shows the shape); the
// conditional block keeps its own stack. Checked against central differences.
#include "zyg_check.h"

double nest(const double *x, int n, int m) {
    double s = 0.3;
    for (int i = 0; i < n; i++) {
        double a = sin(x[i % 4] + s);
        double t = 0.0;
        for (int j = 0; j < m; j++)
            t += cos(a * t + x[j % 4]);
        if (t > 1.0)
            s += exp(-0.1 * t) * a;
        s = 0.5 * s + a * t * x[(i + 1) % 4];
    }
    return s;
}

int main(void) {
    double inputs[3][4] = {{0.3, -0.7, 0.2, 1.1}, {1.2, 0.4, -0.5, 0.6}, {-0.9, 0.8, 1.3, -0.4}};
    int sizes[3][2] = {{5, 3}, {7, 1}, {1, 6}};
    for (int c = 0; c < 3; c++) {
        double *x = inputs[c], dx[4] = {0};
        int n = sizes[c][0], m = sizes[c][1];
        __enzyme_autodiff((void *)nest, x, dx, n, m);
        for (int k = 0; k < 4; k++) {
            double xp[4], xm[4];
            for (int j = 0; j < 4; j++)
                xp[j] = xm[j] = x[j];
            xp[k] += 1e-6;
            xm[k] -= 1e-6;
            check_close("d nest / dx", dx[k], (nest(xp, n, m) - nest(xm, n, m)) / 2e-6, FD_RTOL, FD_ATOL);
        }
    }
    return zyg_report();
}
