// A double's bits passed through an integer across a call (into a helper that stores them,
// or one that makes them a double again, after a helper returned them) and made a double
// again: the derivative cannot follow an integer, and it once came out as 0. zyg refuses
// the call that would turn the bits back, naming it. (Within one function LLVM folds such
// round trips away before zyg sees them; bits that are only inspected are fine:
// floatint_inspected.c.)
// RUN: rm -f %t.out.ll
// RUN: %clang -O0 -g -S -emit-llvm -DARGUMENT %s -o %t.arg0.ll
// RUN: not %zyg grad %t.arg0.ll -o %t.out.ll 2>&1 | FileCheck --check-prefix=ARGUMENT %s
// RUN: %clang -O2 -g -S -emit-llvm -DARGUMENT %s -o %t.arg2.ll
// RUN: not %zyg grad %t.arg2.ll -o %t.out.ll 2>&1 | FileCheck --check-prefix=ARGUMENT %s
// RUN: %clang -O0 -g -S -emit-llvm %s -o %t.ret0.ll
// RUN: not %zyg grad %t.ret0.ll -o %t.out.ll 2>&1 | FileCheck --check-prefix=RETURN %s
// RUN: %clang -O2 -g -S -emit-llvm %s -o %t.ret2.ll
// RUN: not %zyg grad %t.ret2.ll -o %t.out.ll 2>&1 | FileCheck --check-prefix=RETURN %s
// RUN: not test -e %t.out.ll
// ARGUMENT: in function `f` at {{.*}}floatint_refused.c:[[@LINE+16]]:{{[0-9]+}}: this passes the bits of an active value as an integer to a call that may make them a float again
// ARGUMENT-NEXT: call void @put_bits(
// RETURN: in function `f` at {{.*}}floatint_refused.c:[[@LINE+17]]:{{[0-9]+}}: this passes the bits of an active value as an integer to a call that may make them a float again
// RETURN-NEXT: call double @from_bits(
#include <stdint.h>
#include <string.h>
double __enzyme_autodiff(void *, ...);
__attribute__((noinline)) int64_t bits_of(double x) { int64_t b; memcpy(&b, &x, 8); return b; }
__attribute__((noinline)) double from_bits(int64_t b) { double x; memcpy(&x, &b, 8); return x; }
__attribute__((noinline)) void put_bits(double *dst, int64_t bits) { memcpy(dst, &bits, 8); }
double f(double x) {
    double y = x * x;
#ifdef ARGUMENT
    double out;
    int64_t bits;
    memcpy(&bits, &y, 8);
    put_bits(&out, bits);
    return out * 3;
#else
    return from_bits(bits_of(y)) * 3;
#endif
}
double df(double x) { return __enzyme_autodiff((void *)f, x); }
