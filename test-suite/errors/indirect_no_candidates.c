// RUN: %clang -O2 -S -emit-llvm -g %s -o %t.ll
// RUN: not %zyg grad %t.ll -o %t.grad.ll 2>&1 | FileCheck %s
// RUN: not test -e %t.grad.ll
// A call through a pointer on an active value, where the module takes the address of no
// function of the call's type: zyg cannot tell which functions it may reach, so it refuses,
// naming the call and the ways out.
// CHECK: zyg: error: {{.*}}in function `model` at {{.*}}indirect_no_candidates.c:[[@LINE+4]]
// CHECK-SAME: a call through a pointer on active values (argument 1 is an active value, its result is active)
// CHECK-SAME: the module takes the address of no function of its type
// CHECK-SAME: `const` argument
double model(double x, double (*f)(double, int)) { return f(x, 3) * x; }

extern double __enzyme_autodiff(void *, ...);
extern int enzyme_const;
double use(double x, double (*f)(double, int)) { return __enzyme_autodiff((void *)model, x, enzyme_const, f); }
