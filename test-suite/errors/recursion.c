// Recursive functions are not differentiated yet: a clear error naming the function.
// RUN: %clang -O0 -S -emit-llvm %s -o %t.ll
// RUN: not %zyg grad %t.ll -o %t.out.ll 2>&1 | FileCheck %s
// CHECK: in function `fact`: recursive functions are not differentiated yet
double __enzyme_autodiff(void *, ...);
double fact(double x, int n) { return n == 0 ? 1.0 : x * fact(x, n - 1); }
double df(double x) { return __enzyme_autodiff((void *)fact, x, 3); }
