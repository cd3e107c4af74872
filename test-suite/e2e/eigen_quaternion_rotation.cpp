// REQUIRES: eigen
// RUN: %grad-run -O1 %s %t %eigen | FileCheck %s
// RUN: %grad-run -O2 %s %t %eigen | FileCheck %s
// RUN: %grad-run -O3 %s %t.v3 %eigen %march-v3 | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Rotations: a Quaterniond built from four parameters and normalised, applied to a vector,
// and an AngleAxisd (angle, normalised axis) turned into a rotation matrix.
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
    Quaterniond q(p[0], p[1], p[2], p[3]);
    q.normalize();
    Vector3d v(p[4], p[5], 1.0);
    AngleAxisd r(p[6], Vector3d(p[7], p[1], p[2]).normalized());
    return (q * v).sum() + (r.toRotationMatrix() * v).squaredNorm() * 0.5 + (q.toRotationMatrix() * r.toRotationMatrix()).trace();
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
