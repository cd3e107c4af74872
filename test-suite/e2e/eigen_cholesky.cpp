// REQUIRES: eigen
// RUN: %grad-run -O1 %s %t %eigen -DEIGEN_DONT_VECTORIZE | FileCheck %s
// RUN: %grad-run -O2 %s %t %eigen -DEIGEN_DONT_VECTORIZE | FileCheck %s
// RUN: %grad-run -O3 %s %t %eigen -DEIGEN_DONT_VECTORIZE | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
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
