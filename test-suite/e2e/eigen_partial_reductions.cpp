// REQUIRES: eigen
// RUN: %grad-run -O1 %s %t %eigen | FileCheck %s
// RUN: %grad-run -O2 %s %t %eigen | FileCheck %s
// RUN: %grad-run -O3 %s %t.v3 %eigen %march-v3 | FileCheck %s
// RUN: not %grad-run -O0 %s %t %eigen 2>&1 | FileCheck %s --check-prefix=O0
// CHECK-NOT: FAIL
// CHECK: ALL OK
// At -O0 zyg refuses, naming the copy whose bytes the type analysis cannot tell apart:
// O0: zyg: error: {{.*}}compile with -O1 or higher
// Partial reductions of a 3x4 map: colwise().sum(), rowwise().norm(), colwise().maxCoeff()
// (the points are away from ties), and rowwise().mean().
// Reverse mode against central differences at three points; forward mode (__enzyme_fwddiff)
// along two directions against the reverse gradient.
#include <Eigen/Dense>
#include <Eigen/Geometry>
extern "C" {
#include "zyg_check.h"
}
#include "zyg_loss_check.hpp"
using namespace Eigen;

#define N 12

static double loss(const double *p) {
    Map<const Matrix<double, 3, 4>> M(p);
    return M.colwise().sum().squaredNorm() + M.rowwise().norm().sum() + M.colwise().maxCoeff().sum() +
           M.rowwise().mean().prod();
}

int main() { return check_loss<loss, N>(); }
