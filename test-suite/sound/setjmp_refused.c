// setjmp and longjmp in differentiated code: a jump out of a callee skips what the primal
// and the adjoint record (the gradient came out wrong, with exit status 0). zyg refuses,
// naming the call.
// RUN: rm -f %t.out.ll
// RUN: %clang -O0 -g -S -emit-llvm %s -o %t.O0.ll
// RUN: not %zyg grad %t.O0.ll -o %t.out.ll 2>&1 | FileCheck %s
// RUN: %clang -O2 -g -S -emit-llvm %s -o %t.O2.ll
// RUN: not %zyg grad %t.O2.ll -o %t.out.ll 2>&1 | FileCheck %s
// RUN: not test -e %t.out.ll
// CHECK: in function `f` at {{.*}}setjmp_refused.c:[[@LINE+7]]:{{[0-9]+}}: `_setjmp`: zyg cannot differentiate non-local jumps
#include <setjmp.h>
double __enzyme_autodiff(void *, ...);
static jmp_buf env;
static double acc;
static void step(double v) { acc = v; longjmp(env, 1); }
double f(double x) {
    if (setjmp(env) == 0)
        step(x * x);
    return acc;
}
double df(double x) { return __enzyme_autodiff((void *)f, x); }
