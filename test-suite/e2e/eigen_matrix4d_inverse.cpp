// REQUIRES: eigen
// RUN: %grad-run -O2 %s %t %eigen | FileCheck %s
// RUN: %grad-run -O3 %s %t %eigen | FileCheck %s
// RUN: %grad-run -O3 %s %t.v3 %eigen %march-v3 | FileCheck %s
// RUN: not %grad-run -O0 %s %t %eigen 2>&1 | FileCheck %s --check-prefix=O0
// CHECK-NOT: FAIL
// CHECK: ALL OK
// O0: zyg: error: {{.*}}{{cannot tell which bytes of this copy carry derivatives and which carry pointers|copies 64 bits of differentiated memory as an integer}}
// With AVX (-O3 -march=x86-64-v3) the tape records hold <4 x double> values; the gradient
// once crashed on a 32-byte-aligned store into one (records live in malloc's 16-byte
// aligned chunks): zyg writes aggregate accesses with at most 16-byte alignment.
// Fixed-size Matrix4d products (Eigen's vectorised small products), a Matrix3d inverse()
// and determinant() (closed forms by cofactors), a Vector4d. Against central differences,
// and the 3x3 inverse's derivative against its closed form d(A^-1) = -A^-1 dA A^-1.
#include <Eigen/Dense>
extern "C" {
#include "zyg_check.h"
}

static double loss(const double *m) {
    Eigen::Map<const Eigen::Matrix4d> A(m);
    Eigen::Matrix4d B = A * A + A.transpose() * 0.5;
    Eigen::Vector4d v(1.0, -2.0, 0.5, 3.0);
    Eigen::Vector4d u = B * v;
    Eigen::Matrix3d C = A.topLeftCorner<3, 3>() + Eigen::Matrix3d::Identity() * 2.0;
    return u.squaredNorm() + C.inverse().sum() + C.determinant() + B.trace();
}

// The sum of the entries of the inverse of a 3x3 matrix (column-major a[9]).
static double inverse_sum(const double *a) {
    Eigen::Map<const Eigen::Matrix3d> A(a);
    return (A.inverse() * Eigen::Vector3d(1, 2, 3)).sum();
}

static double loss_ctx(const double *m, void *) { return loss(m); }

int main() {
    double m[16];
    for (int p = 0; p < 3; p++) {
        for (int k = 0; k < 16; k++)
            m[k] = 0.4 * sin(0.7 * k + p) + (k % 5 == 0 ? 1.5 : 0.0);
        double dm[16] = {0};
        __enzyme_autodiff((void *)loss, enzyme_dup, m, dm);
        check_array_fd("dA", loss_ctx, 0, m, 16, dm);

        double a[9], da[9] = {0};
        for (int k = 0; k < 9; k++)
            a[k] = m[k] + (k % 4 == 0 ? 2.0 : 0.0);
        __enzyme_autodiff((void *)inverse_sum, enzyme_dup, a, da);
        // d/dA_ij of 1^T A^-1 w = -(A^-T 1)_i (A^-1 w)_j
        Eigen::Map<const Eigen::Matrix3d> A(a);
        Eigen::Matrix3d inv = A.inverse();
        Eigen::Vector3d l = inv.transpose() * Eigen::Vector3d::Ones(), r = inv * Eigen::Vector3d(1, 2, 3);
        for (int j = 0; j < 3; j++)
            for (int i = 0; i < 3; i++)
                check_close("dinv", da[i + 3 * j], -l(i) * r(j), 1e-10, 1e-12);
    }
    return zyg_report();
}
