// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Loops whose bodies are several blocks: the blocks of the outer loop outside the inner one
// write their alphas into the record the outer loop's header pushes
// (test-suite/ir/tape_shared_record.ll shows the shape), the conditional block's too: in an
// iteration that skips it its fields stay unwritten and unread. Checked against central
// differences, with sizes that run the inner loop zero, one and several times.
#include "zyg_check.h"

double nest(const double *x, int n, int m) {
    double s = 0.3;
    for (int i = 0; i < n; i++) {
        double a = sin(x[i % 4] + s);
        double t = 0.0;
        for (int j = 0; j < m; j++)
            t += cos(a * t + x[j % 4]);
        if (t > 1.0)
            s += exp(-0.1 * t) * a; // taken in some iterations only
        else
            s -= 0.2 * a * a;
        s = 0.5 * s + a * t * x[(i + 1) % 4];
    }
    return s;
}

static double nest_of(const double *x, void *sizes) {
    const int *nm = sizes;
    return nest(x, nm[0], nm[1]);
}

int main(void) {
    double inputs[4][4] = {{0.3, -0.7, 0.2, 1.1}, {1.2, 0.4, -0.5, 0.6}, {-0.9, 0.8, 1.3, -0.4}, {0.5, 0.1, -0.2, 0.9}};
    int sizes[4][2] = {{5, 3}, {7, 1}, {1, 6}, {4, 0}};
    for (int c = 0; c < 4; c++) {
        double dx[4] = {0};
        __enzyme_autodiff((void *)nest, inputs[c], dx, sizes[c][0], sizes[c][1]);
        check_array_fd("d nest / dx", nest_of, sizes[c], inputs[c], 4, dx);
    }
    return zyg_report();
}
