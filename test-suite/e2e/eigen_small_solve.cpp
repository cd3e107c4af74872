// REQUIRES: eigen
// RUN: %grad-run -O1 %s %t %eigen | FileCheck %s
// RUN: %grad-run -O2 %s %t %eigen | FileCheck %s
// RUN: %grad-run -O3 %s %t.v3 %eigen %march-v3 | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
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
