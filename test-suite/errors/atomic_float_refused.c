// RUN: %clang -O2 -S -emit-llvm -g %s -o %t.ll
// RUN: not %zyg grad %t.ll -o %t.grad.ll 2>&1 | FileCheck %s
// RUN: not test -e %t.grad.ll
// A sequentially consistent atomic addition of a float into memory (`atomicrmw fadd
// seq_cst`) in the function to differentiate: zyg reads relaxed float additions (OpenMP's
// `atomic`) and atomic updates of integers (reference counts) only, and says so.
// CHECK: zyg: error: {{.*}}in function `model`
// CHECK-SAME: `atomicrmw` on floats other than a relaxed (`monotonic`) `fadd` is not supported yet
double model(double x, double *acc) {
    __atomic_fetch_add(acc, x * x, __ATOMIC_SEQ_CST);
    return *acc;
}

extern double __enzyme_autodiff(void *, ...);
extern int enzyme_dup;
double use(double x, double *acc, double *dacc) { return __enzyme_autodiff((void *)model, x, enzyme_dup, acc, dacc); }
