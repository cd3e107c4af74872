// Inline assembly zyg does not know the meaning of, in the function to differentiate, is
// refused, naming the template and the forms zyg reads. (An empty template whose output is
// its tied input, an optimisation barrier, is read as the identity: e2e/inline_asm_barrier.c.)
// REQUIRES: x86-64-v3
// RUN: rm -f %t.out.ll
// RUN: %clang -O2 -g -S -emit-llvm %s -o %t.ll
// RUN: not %zyg grad %t.ll -o %t.out.ll 2>&1 | FileCheck %s
// RUN: not test -e %t.out.ll
// CHECK: zyg: error: {{.*}}inline assembly `sqrtsd $1, $0` is not supported: zyg reads only empty templates (optimisation barriers, whose outputs are their tied inputs), assembler comments, and the SSE/AVX min, max and fused multiply-add Eigen writes as asm; write the operation in C or with intrinsics
extern double __enzyme_autodiff(void *, ...);

double f(double x) {
    double r;
    __asm__("sqrtsd %1, %0" : "=x"(r) : "x"(x));
    return r * x;
}

double df(double x) { return __enzyme_autodiff((void *)f, x); }
