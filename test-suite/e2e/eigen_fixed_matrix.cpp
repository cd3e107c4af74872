// REQUIRES: eigen
// RUN: %grad-run -O1 %s %t %eigen | FileCheck %s
// RUN: %grad-run -O2 %s %t %eigen | FileCheck %s
// RUN: %grad-run -O3 %s %t.v3 %eigen %march-v3 | FileCheck %s
// RUN: not %grad-run -O0 %s %t %eigen 2>&1 | FileCheck %s --check-prefix=O0
// CHECK-NOT: FAIL
// CHECK: ALL OK
// O0: zyg: error: {{.*}}{{cannot tell which bytes of this copy carry derivatives and which carry pointers|copies 64 bits of differentiated memory as an integer}}{{.*}}compile with -O1 or higher
#include <Eigen/Dense>
extern "C" {
#include "zyg_check.h"
}

// Fixed-size arithmetic on Matrix3d and Vector3d mapped over raw arrays.
static double loss(const double *a, const double *v) {
    Eigen::Map<const Eigen::Matrix3d> A(a);
    Eigen::Map<const Eigen::Vector3d> x(v);
    Eigen::Matrix3d B = A * A.transpose() + 2.0 * A;
    Eigen::Vector3d y = B * x;
    return y.dot(x) + y.squaredNorm() + B.sum() + A.norm();
}

static double loss_a(const double *a, void *ctx) { return loss(a, (const double *)ctx); }
static double loss_v(const double *v, void *ctx) { return loss((const double *)ctx, v); }

int main() {
    double a[9] = {0.3, -0.5, 0.8, 0.1, -0.2, 0.7, 1.1, 0.4, -0.9};
    double v[3] = {0.4, -1.2, 0.6};
    for (int p = 0; p < 3; p++) {
        double da[9] = {0}, dv[3] = {0};
        __enzyme_autodiff((void *)loss, enzyme_dup, a, da, enzyme_dup, v, dv);
        check_array_fd("dA", loss_a, v, a, 9, da);
        check_array_fd("dv", loss_v, a, v, 3, dv);
        for (int k = 0; k < 9; k++)
            a[k] = a[k] * 0.9 + 0.05 * k;
        v[p] += 0.3;
    }
    return zyg_report();
}
