// REQUIRES: eigen
// RUN: %grad-run -O1 %s %t %eigen -DEIGEN_DONT_VECTORIZE | FileCheck %s
// RUN: %grad-run -O2 %s %t %eigen -DEIGEN_DONT_VECTORIZE | FileCheck %s
// RUN: %grad-run -O3 %s %t %eigen -DEIGEN_DONT_VECTORIZE | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
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
using namespace Eigen;

#define N 8

static double loss(const double *p) {
    Map<const ArrayXd> a(p, 6);
    Map<const VectorXd, 0, InnerStride<2>> s(p, 4);
    return (a.square() * a.sin()).sum() + a.maxCoeff() - a.minCoeff() + s.array().exp().sum() + s.lpNorm<1>();
}

static double loss_ctx(const double *p, void *) { return loss(p); }

int main() {
    for (int t = 0; t < 3; t++) {
        double p[N], dp[N] = {0};
        for (int k = 0; k < N; k++)
            p[k] = 0.4 + 0.23 * k - 0.07 * k * (k % 3) + 0.31 * t;
        __enzyme_autodiff((void *)loss, enzyme_dup, p, dp);
        check_array_fd("gradient vs FD", loss_ctx, 0, p, N, dp);
        for (int d = 0; d < 2; d++) {
            double dir[N], want = 0;
            for (int k = 0; k < N; k++) {
                dir[k] = (k + d) % 3 == 0 ? 1.0 : -0.5;
                want += dir[k] * dp[k];
            }
            double tangent = __enzyme_fwddiff((void *)loss, enzyme_dup, p, dir);
            check_close("tangent vs gradient", tangent, want, 1e-10, 1e-12);
        }
    }
    return zyg_report();
}
