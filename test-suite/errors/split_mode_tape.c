// A reverse call must end with the result's adjoint and the tape the forward half returned.
// RUN: %clang -O0 -g -S -emit-llvm %s -o %t.ll
// RUN: not %zyg grad %t.ll -o %t.out.ll 2>&1 | FileCheck %s
// RUN: not test -e %t.out.ll
// CHECK: in `g` at {{.*}}split_mode_tape.c:{{[0-9]+}}:{{[0-9]+}}: the reverse call for `f` must end with the result's adjoint and the tape
double __enzyme_reverse(void *, ...);
double f(double x) { return x * x; }
double g(double x) { return __enzyme_reverse((void *)f, x); }
