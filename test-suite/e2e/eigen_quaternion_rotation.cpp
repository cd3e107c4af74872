// REQUIRES: eigen
// RUN: %grad-run -O1 %s %t %eigen | FileCheck %s
// RUN: %grad-run -O2 %s %t %eigen | FileCheck %s
// RUN: %grad-run -O3 %s %t.v3 %eigen %march-v3 | FileCheck %s
// RUN: not %grad-run -O0 %s %t %eigen 2>&1 | FileCheck %s --check-prefix=O0
// CHECK-NOT: FAIL
// CHECK: ALL OK
// At -O0 zyg refuses, naming the copy whose bytes the type analysis cannot tell apart:
// O0: zyg: error: {{.*}}compile with -O1 or higher
// Rotations: a Quaterniond built from four parameters and normalised, applied to a vector,
// and an AngleAxisd (angle, normalised axis) turned into a rotation matrix.
// Reverse mode against central differences at three points; forward mode (__enzyme_fwddiff)
// along two directions against the reverse gradient.
#include <Eigen/Dense>
#include <Eigen/Geometry>
extern "C" {
#include "zyg_check.h"
}
#include "zyg_loss_check.hpp"
using namespace Eigen;

#define N 8

static double loss(const double *p) {
    Quaterniond q(p[0], p[1], p[2], p[3]);
    q.normalize();
    Vector3d v(p[4], p[5], 1.0);
    AngleAxisd r(p[6], Vector3d(p[7], p[1], p[2]).normalized());
    return (q * v).sum() + (r.toRotationMatrix() * v).squaredNorm() * 0.5 + (q.toRotationMatrix() * r.toRotationMatrix()).trace();
}

int main() { return check_loss<loss, N>(); }
