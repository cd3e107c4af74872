// Forward mode uses forward registrations (`__enzyme_register_derivative_*`,
// `__zyg_tangent_*`); a pullback registered for reverse mode does not give a tangent. A
// forward request through a function that has only a pullback, and no body, is an error
// naming the call and the registration forward mode would use; nothing is written.
// RUN: rm -f %t.out.ll
// RUN: %clang -O0 -g -S -emit-llvm %s -o %t.ll
// RUN: not %zyg grad %t.ll -o %t.out.ll 2>&1 | FileCheck %s
// RUN: not test -e %t.out.ll
// CHECK: zyg: error: {{.*}}.ll: in function `f` at {{.*}}forward_custom_derivative.c:[[@LINE+6]]
// CHECK-SAME: no derivative is known for `mystery`: {{.*}}register a derivative for it (`__enzyme_register_derivative_mystery`
double mystery(double x);
double d_mystery(double x, double dret) { return dret * 3.0; }
void *__zyg_pullback_mystery[2] = {(void *)mystery, (void *)d_mystery};
double __enzyme_fwddiff(void *, ...);
double f(double x) { return mystery(x) * 2.0; }
double df(double x) { return __enzyme_fwddiff((void *)f, x, 1.0); }
