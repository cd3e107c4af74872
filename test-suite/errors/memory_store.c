// Storing an active value to memory is refused (memory is not differentiated yet) rather
// than silently giving a wrong gradient.
// RUN: %clang -O2 -g -S -emit-llvm %s -o %t.ll
// RUN: not %zyg grad %t.ll -o %t.out.ll 2>&1 | FileCheck %s
// CHECK: in function `f`{{.*}}: an active value is stored to memory
double __enzyme_autodiff(void *, ...);
double sink;
double f(double x) { sink = x * 2.0; return x * x; }
double df(double x) { return __enzyme_autodiff((void *)f, x); }
