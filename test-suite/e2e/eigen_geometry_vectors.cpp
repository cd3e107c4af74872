// REQUIRES: eigen
// RUN: %grad-run -O1 %s %t %eigen | FileCheck %s
// RUN: %grad-run -O2 %s %t %eigen | FileCheck %s
// RUN: %grad-run -O3 %s %t.v3 %eigen %march-v3 | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
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
using namespace Eigen;

#define N 6

static double loss(const double *p) {
    Map<const Vector3d> a(p), b(p + 3);
    Matrix3d O = a * b.transpose();
    return a.cross(b).squaredNorm() + a.normalized().dot(b) + O.trace() + (O * a).norm();
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
