// A `dup` argument must be followed by its shadow; a marker on a non-pointer is refused.
// RUN: %clang -O0 -g -S -emit-llvm %s -o %t.ll
// RUN: not %zyg grad %t.ll -o %t.out.ll 2>&1 | FileCheck %s
// CHECK: zyg: error: {{.*}}: in `df` at {{.*}}pointer_argument.c:{{[0-9]+}}:{{[0-9]+}}: parameter 0 of `f` is `dup` but no shadow follows it
double __enzyme_autodiff(void *, ...);
extern int enzyme_dup;
double f(double *x) { return x[0] * x[0]; }
double df(double *x) { return __enzyme_autodiff((void *)f, enzyme_dup, x); }
