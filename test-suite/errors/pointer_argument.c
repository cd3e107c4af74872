// Pointer arguments (dup) are a later slice: a clear error at the request.
// RUN: %clang -O0 -g -S -emit-llvm %s -o %t.ll
// RUN: not %zyg grad %t.ll -o %t.out.ll 2>&1 | FileCheck %s
// CHECK: zyg: error: {{.*}}: in `df` at {{.*}}pointer_argument.c:{{[0-9]+}}:{{[0-9]+}}: parameter 0 of `f` is `dup`
double __enzyme_autodiff(void *, ...);
double f(double *x) { return x[0] * x[0]; }
double df(double *x, double *dx) { return __enzyme_autodiff((void *)f, x, dx); }
