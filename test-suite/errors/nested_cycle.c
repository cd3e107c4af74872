// A function that asks for its own derivative (here through a helper) cannot be filled
// innermost first: zyg says so at the first request, naming the function; nothing is written.
// RUN: rm -f %t.out.ll
// RUN: %clang -O0 -g -S -emit-llvm %s -o %t.ll
// RUN: not %zyg grad %t.ll -o %t.out.ll 2>&1 | FileCheck %s
// RUN: not test -e %t.out.ll
// CHECK: zyg: error: {{.*}}.ll: in `slope` at {{.*}}nested_cycle.c:[[@LINE+6]]:{{[0-9]+}}: the requests for `f` and the functions it differentiates reach each other
double __enzyme_autodiff(void *, ...);
double f(double x);
double slope(double x);
double f(double x) { return x * slope(x); }
double slope(double x) {
    return __enzyme_autodiff((void *)f, x);
}
