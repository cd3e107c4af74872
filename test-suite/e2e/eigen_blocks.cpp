// REQUIRES: eigen
// RUN: %grad-run -O1 %s %t %eigen | FileCheck %s
// RUN: %grad-run -O2 %s %t %eigen | FileCheck %s
// RUN: %grad-run -O3 %s %t.v3 %eigen %march-v3 | FileCheck %s
// RUN: not %grad-run -O0 %s %t %eigen 2>&1 | FileCheck %s --check-prefix=O0
// One step through the pass plugin: refused on the early code, filled in after -O2's simplification.
// RUN: %plugin-run -O2 %s %t %eigen | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// O0: zyg: error: {{.*}}{{cannot tell which bytes of this copy carry derivatives and which carry pointers|copies 64 bits of differentiated memory as an integer}}
// Blocks of dynamic matrices and vectors: block(), col(), row(), head(), tail(),
// segment(), written into (a block on the left of an assignment) and read. Reverse mode
// against central differences, forward mode against the reverse gradient.
#include <Eigen/Dense>
extern "C" {
#include "zyg_check.h"
}

static double loss(const double *x, int rows, int cols) {
    Eigen::Map<const Eigen::MatrixXd> A(x, rows, cols);
    Eigen::MatrixXd B = Eigen::MatrixXd::Zero(rows, cols);
    B.block(1, 1, rows - 2, cols - 2) = A.block(0, 0, rows - 2, cols - 2) * 3.0;
    B.col(0) = A.col(cols - 1).cwiseAbs2();
    B.row(rows - 1) += A.row(0);
    Eigen::VectorXd v = B.col(1);
    double s = v.head(2).sum() * v.tail(2).prod() + v.segment(1, 3).squaredNorm();
    return s + B.sum() + (B.block(0, 0, 2, 2) * A.block(1, 1, 2, 2)).trace();
}

static double loss_ctx(const double *x, void *) { return loss(x, 5, 4); }

int main() {
    double x[20];
    for (int p = 0; p < 3; p++) {
        for (int k = 0; k < 20; k++)
            x[k] = 0.5 * cos(0.8 * k + 1.7 * p) - 0.1;
        double dx[20] = {0};
        __enzyme_autodiff((void *)loss, enzyme_dup, x, dx, enzyme_const, 5, enzyme_const, 4);
        check_array_fd("dx", loss_ctx, 0, x, 20, dx);
        for (int k = 0; k < 20; k += 7) {
            double dir[20] = {0};
            dir[k] = 1;
            double t = __enzyme_fwddiff((void *)loss, enzyme_dup, x, dir, enzyme_const, 5, enzyme_const, 4);
            check_close("forward", t, dx[k], 1e-10, 1e-12);
        }
    }
    return zyg_report();
}
