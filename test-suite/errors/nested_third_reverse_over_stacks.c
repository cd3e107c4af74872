// A third reverse sweep over a loop's tape (reverse over reverse over reverse, the innermost
// function looping) is not supported yet: the outermost `__enzyme_autodiff` is an error that
// says so and what to use instead, at -O0 and -O2, and nothing is written. (Reverse over
// reverse of the same loop works, and forward over it: e2e/hessian_reverse_loops.c.)
// RUN: rm -f %t.out.ll %t.out2.ll
// RUN: %clang -O0 -g -S -emit-llvm %s -o %t.ll
// RUN: not %zyg grad %t.ll -o %t.out.ll 2>&1 | FileCheck %s
// RUN: not test -e %t.out.ll
// RUN: %clang -O2 -g -S -emit-llvm %s -o %t2.ll
// RUN: not %zyg grad %t2.ll -o %t.out2.ll 2>&1 | FileCheck %s
// RUN: not test -e %t.out2.ll
// CHECK: zyg: error: {{.*}}.ll:{{.*}}reverse mode over a generated second derivative whose tape has stacks
// CHECK-SAME: take forward mode for the outermost request
double __enzyme_autodiff(void *, ...);
extern int enzyme_const;

static double f(double x, int n) {
    double s = 0;
    // A quotient, which the adjoint does not rebuild: the loop keeps a stack at -O0 too
    // (with `x * i`, the product is rebuilt and the -O0 loop stores nothing).
    for (int i = 0; i < n; i++) s += __builtin_sin(x / (i + 1));
    return s;
}

static double df(double x, int n) { return __enzyme_autodiff((void *)f, x, enzyme_const, n); }

static double d2f(double x, int n) { return __enzyme_autodiff((void *)df, x, enzyme_const, n); }

double d3f(double x, int n) { return __enzyme_autodiff((void *)d2f, x, enzyme_const, n); }
