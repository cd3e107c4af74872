// RUN: %clang -O2 -S -emit-llvm -g %s -o %t.ll
// RUN: not %zyg grad %t.ll -o %t.grad.ll 2>&1 | FileCheck %s
// RUN: not test -e %t.grad.ll
// An atomic subtraction of a float from memory (`atomicrmw fsub`) in the function to
// differentiate: zyg reads float additions (OpenMP's `atomic`, CUDA's `atomicAdd`) and
// atomic updates of integers (reference counts) only, and says so.
// CHECK: zyg: error: {{.*}}in function `model`
// CHECK-SAME: `atomicrmw` on floats other than `fadd` is not supported yet
double model(double x, double *acc) {
    __atomic_fetch_sub(acc, x * x, __ATOMIC_RELAXED);
    return *acc;
}

extern double __enzyme_autodiff(void *, ...);
extern int enzyme_dup;
double use(double x, double *acc, double *dacc) { return __enzyme_autodiff((void *)model, x, enzyme_dup, acc, dacc); }
