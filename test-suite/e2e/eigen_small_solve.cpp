// REQUIRES: eigen
// RUN: %grad-run -O1 %s %t %eigen | FileCheck %s
// RUN: %grad-run -O2 %s %t %eigen | FileCheck %s
// RUN: %grad-run -O3 %s %t.v3 %eigen %march-v3 | FileCheck %s
// RUN: not %grad-run -O0 %s %t %eigen 2>&1 | FileCheck %s --check-prefix=O0
// CHECK-NOT: FAIL
// CHECK: ALL OK
// At -O0 zyg refuses, naming the copy whose bytes the type analysis cannot tell apart:
// O0: zyg: error: {{.*}}compile with -O1 or higher
// Small linear algebra without a decomposition object: a 2x2 inverse() applied to a
// vector, a triangularView<Upper>() copied out, and a triangular solve with the lower part
// of a row-major 3x3 map.
// Reverse mode against central differences at three points; forward mode (__enzyme_fwddiff)
// along two directions against the reverse gradient.
#include <Eigen/Dense>
#include <Eigen/Geometry>
extern "C" {
#include "zyg_check.h"
}
#include "zyg_loss_check.hpp"
using namespace Eigen;

#define N 9

static double loss(const double *p) {
    Map<const Matrix2d> A(p);
    Vector2d x = A.inverse() * Vector2d(1.0, 2.0);
    Map<const Matrix<double, 3, 3, RowMajor>> B(p);
    Matrix3d U = B.triangularView<Upper>();
    Matrix3d L = B;
    L.diagonal().array() += 3.0;
    Vector3d y = L.triangularView<Lower>().solve(Vector3d(1, 2, 3));
    return x.squaredNorm() + U.sum() + y.sum();
}

int main() { return check_loss<loss, N>(); }
