// REQUIRES: eigen
// RUN: %grad-run -O1 %s %t %eigen -DEIGEN_DONT_VECTORIZE | FileCheck %s
// RUN: %grad-run -O2 %s %t %eigen -DEIGEN_DONT_VECTORIZE | FileCheck %s
// RUN: %grad-run -O3 %s %t %eigen -DEIGEN_DONT_VECTORIZE | FileCheck %s
// RUN: not %grad-run -O0 %s %t %eigen -DEIGEN_DONT_VECTORIZE 2>&1 | FileCheck %s --check-prefix=O0
// CHECK-NOT: FAIL
// CHECK: ALL OK
// At -O0 zyg refuses, naming the copy whose bytes the type analysis cannot tell apart:
// O0: zyg: error: {{.*}}compile with -O1 or higher
// Decompositions of a fixed-size symmetric positive definite matrix S = A^T A + I: LLT and
// LDLT, each solving S x = b. Built with
// EIGEN_DONT_VECTORIZE (vectorised, the factorisation copies 56 bytes zyg cannot type).
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
    Map<const Matrix3d> A(p);
    Matrix3d S = A.transpose() * A + Matrix3d::Identity();
    Vector3d b(1, 2, 3);
    Vector3d x = S.llt().solve(b);
    Vector3d y = S.ldlt().solve(b);
    return x.sum() + y.squaredNorm();
}

int main() { return check_loss<loss, N>(); }
