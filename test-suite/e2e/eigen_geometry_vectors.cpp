// REQUIRES: eigen
// RUN: %grad-run -O1 %s %t %eigen | FileCheck %s
// RUN: %grad-run -O2 %s %t %eigen | FileCheck %s
// RUN: %grad-run -O3 %s %t.v3 %eigen %march-v3 | FileCheck %s
// RUN: not %grad-run -O0 %s %t %eigen 2>&1 | FileCheck %s --check-prefix=O0
// CHECK-NOT: FAIL
// CHECK: ALL OK
// At -O0 zyg refuses, naming the copy whose bytes the type analysis cannot tell apart:
// O0: zyg: error: {{.*}}compile with -O1 or higher
// Eigen's geometry on fixed-size vectors: a cross product, normalized(), an outer product
// a a^T with its trace, determinant and a product by a, and a Vector3d built from an
// expression.
// Reverse mode against central differences at three points; forward mode (__enzyme_fwddiff)
// along two directions against the reverse gradient.
#include <Eigen/Dense>
#include <Eigen/Geometry>
extern "C" {
#include "zyg_check.h"
}
#include "zyg_loss_check.hpp"
using namespace Eigen;

#define N 6

static double loss(const double *p) {
    Map<const Vector3d> a(p), b(p + 3);
    Matrix3d O = a * b.transpose();
    return a.cross(b).squaredNorm() + a.normalized().dot(b) + O.trace() + (O * a).norm();
}

int main() { return check_loss<loss, N>(); }
