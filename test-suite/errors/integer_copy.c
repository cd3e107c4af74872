// Doubles moved as 8-byte integers by a function with no float accesses of its own: zyg
// cannot tell whether the bytes hold a double, and says so instead of dropping the gradient.
// RUN: %clang -O2 -g -S -emit-llvm %s -o %t.ll
// RUN: not %zyg grad %t.ll -o %t.out.ll 2>&1 | FileCheck %s
// RUN: not test -e %t.out.ll
// CHECK: in function `move8` at {{.*}}integer_copy.c:{{[0-9]+}}:{{[0-9]+}}: this copies 64 bits of differentiated memory as an integer, and zyg cannot tell whether they hold a float
#include <string.h>
double __enzyme_autodiff(void *, ...);
__attribute__((noinline)) void move8(void *dst, const void *src) { memcpy(dst, src, 8); }
double f(double *x) {
    move8(&x[0], &x[1]);
    return x[0] * x[0];
}
double df(double *x, double *dx) { return __enzyme_autodiff((void *)f, x, dx); }
