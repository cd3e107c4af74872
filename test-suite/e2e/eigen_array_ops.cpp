// REQUIRES: eigen
// RUN: %grad-run -O1 %s %t %eigen -DEIGEN_DONT_VECTORIZE | FileCheck %s
// RUN: %grad-run -O2 %s %t %eigen -DEIGEN_DONT_VECTORIZE | FileCheck %s
// RUN: %grad-run -O3 %s %t %eigen -DEIGEN_DONT_VECTORIZE | FileCheck %s
// RUN: not %grad-run -O0 %s %t %eigen -DEIGEN_DONT_VECTORIZE 2>&1 | FileCheck %s --check-prefix=O0
// CHECK-NOT: FAIL
// CHECK: ALL OK
// At -O0 zyg refuses, naming the copy whose bytes the type analysis cannot tell apart:
// O0: zyg: error: {{.*}}compile with -O1 or higher
// Coefficient-wise arrays: square(), sin(), exp(), maxCoeff() and minCoeff() of an ArrayXd
// map (points away from ties), and a strided map (InnerStride<2>) with lpNorm<1>() (away
// from zero). Built with EIGEN_DONT_VECTORIZE: Eigen's vectorised exp and sin build floats
// from integer bits, which zyg refuses (errors/eigen_vectorized_exp.cpp).
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
    Map<const ArrayXd> a(p, 6);
    Map<const VectorXd, 0, InnerStride<2>> s(p, 4);
    return (a.square() * a.sin()).sum() + a.maxCoeff() - a.minCoeff() + s.array().exp().sum() + s.lpNorm<1>();
}

int main() { return check_loss<loss, N>(); }
