// A derivative through a function with no body and no rule is an error that names the
// function, the caller and the source line; nothing is written.
// RUN: rm -f %t.out.ll
// RUN: %clang -O0 -g -S -emit-llvm %s -o %t.ll
// RUN: not %zyg grad %t.ll -o %t.out.ll 2>&1 | FileCheck %s
// RUN: not test -e %t.out.ll
// CHECK: zyg: error: {{.*}}.ll: in function `f` at {{.*}}unknown_function.c:[[@LINE+4]]
// CHECK: no derivative is known for `mystery`
double mystery(double);
double __enzyme_autodiff(void *, ...);
double f(double x) { return mystery(x) * 2.0; }
double df(double x) { return __enzyme_autodiff((void *)f, x); }
