// REQUIRES: eigen
// RUN: %grad-run -O1 %s %t %eigen | FileCheck %s
// RUN: %grad-run -O2 %s %t %eigen | FileCheck %s
// RUN: %grad-run -O3 %s %t.v3 %eigen %march-v3 | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Partial reductions of a 3x4 map: colwise().sum(), rowwise().norm(), colwise().maxCoeff()
// (the points are away from ties), and rowwise().mean().
// Reverse mode against central differences at three points; forward mode (__enzyme_fwddiff)
// along two directions against the reverse gradient.
#include <Eigen/Dense>
#include <Eigen/Geometry>
extern "C" {
#include "zyg_check.h"
}
using namespace Eigen;

#define N 12

static double loss(const double *p) {
    Map<const Matrix<double, 3, 4>> M(p);
    return M.colwise().sum().squaredNorm() + M.rowwise().norm().sum() + M.colwise().maxCoeff().sum() +
           M.rowwise().mean().prod();
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
