// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Logistic regression loss of one sample with two features: gradient against the
// closed form (sigmoid(z) - label) * feature.
#include "zyg_check.h"

double loss(double w0, double w1, double b, double x0, double x1, int label) {
    double z = w0 * x0 + w1 * x1 + b;
    double p = 1.0 / (1.0 + exp(-z));
    return label ? -log(p) : -log(1.0 - p);
}

int main(void) {
    double data[][3] = {{0.5, -1.2, 1}, {2.0, 0.3, 0}, {-0.7, 0.9, 1}};
    for (int i = 0; i < 3; i++) {
        double w0 = 0.4, w1 = -0.3, b = 0.1, x0 = data[i][0], x1 = data[i][1];
        int label = (int)data[i][2];
        zyg_grad3 g = __enzyme_autodiff3((void *)loss, w0, w1, b, enzyme_const, x0, enzyme_const, x1, label);
        double p = 1.0 / (1.0 + exp(-(w0 * x0 + w1 * x1 + b)));
        check_close("dw0", g.d0, (p - label) * x0, 1e-12, 1e-14);
        check_close("dw1", g.d1, (p - label) * x1, 1e-12, 1e-14);
        check_close("db", g.d2, p - label, 1e-12, 1e-14);
    }
    return zyg_report();
}
