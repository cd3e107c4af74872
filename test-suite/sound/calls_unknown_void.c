// A call to a function without a body or rule is active when any argument is active,
// whatever its type or return type: `log_value` (defined in another translation unit)
// might keep its argument somewhere the result reads, so zyg refuses rather than drop the
// contribution. The message names the function, the active argument and the ways out.
// RUN: rm -f %t.out.ll
// RUN: %clang -O0 -g -S -emit-llvm %s -o %t.O0.ll
// RUN: not %zyg grad %t.O0.ll -o %t.out.ll 2>&1 | FileCheck %s
// RUN: %clang -O2 -g -S -emit-llvm %s -o %t.O2.ll
// RUN: not %zyg grad %t.O2.ll -o %t.out.ll 2>&1 | FileCheck %s
// RUN: not test -e %t.out.ll
// CHECK: zyg: error: {{.*}}.ll: in function `f` at {{.*}}calls_unknown_void.c:[[@LINE+8]]
// CHECK-SAME: no derivative is known for `log_value`: it has no body in this module and no rule, and argument 1 is an active value
// CHECK-SAME: declare it inactive
// CHECK-SAME: register a derivative
void log_value(double);
double __enzyme_autodiff(void *, ...);
double f(double x) {
    double y = x * x;
    log_value(y);
    return y;
}
double df(double x) { return __enzyme_autodiff((void *)f, x); }
