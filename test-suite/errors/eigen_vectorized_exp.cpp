// Eigen's vectorised exp (pexp on SSE/AVX packets) builds 2^n from the bits of the doubles
// (integer shifts and bit masks on the packet): zyg refuses to follow a derivative through
// integers, naming the instruction. Compiled with -DEIGEN_DONT_VECTORIZE, exp is the C
// library's, and the gradient is computed (e2e/eigen_dynamic_vector.cpp).
// REQUIRES: eigen
// RUN: rm -f %t.out.ll
// RUN: %clangxx -O2 -g %eigen -S -emit-llvm %s -o %t.ll
// RUN: not %zyg grad %t.ll -o %t.out.ll 2>&1 | FileCheck %s
// RUN: not test -e %t.out.ll
// CHECK: zyg: error: {{.*}}PacketMath.h{{.*}}zyg cannot follow a derivative through an integer
#include <Eigen/Dense>
extern "C" double __enzyme_autodiff(void *, ...);
extern "C" int enzyme_dup, enzyme_const;

static double loss(const double *x, int n) {
    Eigen::Map<const Eigen::VectorXd> v(x, n);
    Eigen::VectorXd e = v.array().exp().matrix();
    return e.sum();
}

void grad(const double *x, double *dx, int n) { __enzyme_autodiff((void *)loss, enzyme_dup, x, dx, enzyme_const, n); }
