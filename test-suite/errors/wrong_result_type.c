// A request declared to return one double for two out arguments.
// RUN: %clang -O0 -g -S -emit-llvm %s -o %t.ll
// RUN: not %zyg grad %t.ll -o %t.out.ll 2>&1 | FileCheck %s
// CHECK: in `df` at {{.*}}wrong_result_type.c:{{[0-9]+}}:{{[0-9]+}}: the request returns one `double` but has 2 `out` arguments
double __enzyme_autodiff(void *, ...);
double f(double x, double y) { return x * y; }
double df(double x, double y) { return __enzyme_autodiff((void *)f, x, y); }
