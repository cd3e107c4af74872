// Forward mode does not use registered derivatives yet (they are pullbacks, for reverse
// mode): a forward request through a function that has one is an error naming the call,
// the rule family and the way out; nothing is written. Reverse mode in the same program
// would use the rule.
// RUN: rm -f %t.out.ll
// RUN: %clang -O0 -g -S -emit-llvm %s -o %t.ll
// RUN: not %zyg grad %t.ll -o %t.out.ll 2>&1 | FileCheck %s
// RUN: not test -e %t.out.ll
// CHECK: zyg: error: {{.*}}.ll: in function `f` at {{.*}}forward_custom_derivative.c:[[@LINE+6]]
// CHECK-SAME: forward mode does not handle this instruction yet (rule family `registered derivatives`); use reverse mode
double mystery(double x);
double d_mystery(double x, double dret) { return dret * 3.0; }
void *__zyg_pullback_mystery[2] = {(void *)mystery, (void *)d_mystery};
double __enzyme_fwddiff(void *, ...);
double f(double x) { return mystery(x) * 2.0; }
double df(double x) { return __enzyme_fwddiff((void *)f, x, 1.0); }
