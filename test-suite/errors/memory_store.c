// Storing an active value to memory zyg cannot trace to differentiated memory (here through
// a pointer read from a `const` argument) is refused rather than silently dropped.
// RUN: %clang -O2 -g -S -emit-llvm %s -o %t.ll
// RUN: not %zyg grad %t.ll -o %t.out.ll 2>&1 | FileCheck %s
// RUN: not test -e %t.out.ll
// CHECK: in function `f`{{.*}}: an active value is stored to memory that is not differentiated
extern int enzyme_const;
double __enzyme_autodiff(void *, ...);
struct sink { double *out; };
double f(double x, struct sink *s) { *s->out = x * 2.0; return x * x; }
double df(double x, struct sink *s) { return __enzyme_autodiff((void *)f, x, enzyme_const, s); }
