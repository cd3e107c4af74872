// REQUIRES: eigen
// RUN: %grad-run -O1 %s %t %eigen -DEIGEN_DONT_VECTORIZE | FileCheck %s
// RUN: %grad-run -O2 %s %t %eigen -DEIGEN_DONT_VECTORIZE | FileCheck %s
// RUN: %grad-run -O3 %s %t.v3 %eigen -DEIGEN_DONT_VECTORIZE %march-v3 | FileCheck %s
// CHECK-NOT: FAIL
// RUN: not %grad-run -O0 %s %t %eigen -DEIGEN_DONT_VECTORIZE 2>&1 | FileCheck %s --check-prefix=O0
// CHECK: ALL OK
// O0: zyg: error: {{.*}}{{cannot tell which bytes of this copy carry derivatives and which carry pointers|copies 64 bits of differentiated memory as an integer}}
// Eigen's vectorised exp and sin work on the bits of the doubles (errors/eigen_vectorized_exp.cpp),
// so this test compiles them as scalar code (EIGEN_DONT_VECTORIZE).
// Dynamic-size vectors: VectorXd temporaries on the heap (Eigen's aligned allocator),
// coefficient-wise array functions (exp, sin, square), dot, norm, squaredNorm and sum.
// Reverse mode against central differences, forward mode against the reverse gradient.
#include <Eigen/Dense>
extern "C" {
#include "zyg_check.h"
}

static double loss(const double *x, const double *w, int n) {
    Eigen::Map<const Eigen::VectorXd> v(x, n), c(w, n);
    Eigen::VectorXd e = v.array().exp().matrix();
    Eigen::VectorXd s = (v.array().sin() * c.array()).matrix();
    Eigen::VectorXd t = e + 0.5 * s - v.cwiseProduct(v);
    return t.dot(c) + s.norm() + e.squaredNorm() * 0.1 + t.sum();
}

struct Ctx {
    const double *w;
    int n;
};
static double loss_x(const double *x, void *ctx) { return loss(x, ((Ctx *)ctx)->w, ((Ctx *)ctx)->n); }
static double loss_w(const double *w, void *ctx) { return loss(((Ctx *)ctx)->w, w, ((Ctx *)ctx)->n); }

int main() {
    const int n = 11;
    double x[n], w[n];
    for (int p = 0; p < 3; p++) {
        for (int k = 0; k < n; k++) {
            x[k] = 0.3 * sin(1.3 * k + p) - 0.1 * p;
            w[k] = 0.7 * cos(0.9 * k - p) + 0.2;
        }
        double dx[n] = {0}, dw[n] = {0};
        __enzyme_autodiff((void *)loss, enzyme_dup, x, dx, enzyme_dup, w, dw, enzyme_const, n);
        Ctx cx = {w, n}, cw = {x, n};
        check_array_fd("dx", loss_x, &cx, x, n, dx);
        check_array_fd("dw", loss_w, &cw, w, n, dw);
        for (int k = 0; k < n; k += 3) {
            double dir[n] = {0}, zero[n] = {0};
            dir[k] = 1;
            double t = __enzyme_fwddiff((void *)loss, enzyme_dup, x, dir, enzyme_dup, w, zero, enzyme_const, n);
            check_close("forward", t, dx[k], 1e-10, 1e-12);
        }
    }
    return zyg_report();
}
