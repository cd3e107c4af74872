// A function returning a struct of floats, asked for a gradient, used to get no seed and a
// gradient of 0: now the request is refused with what to do, in registers and through sret
// memory alike, and in split mode. (structret_seeds.c: what the flags do.)
// RUN: rm -f %t.out.ll
// RUN: %clang -O0 -g -DCASE=1 -S -emit-llvm %s -o %t.1.ll
// RUN: not %zyg grad %t.1.ll -o %t.out.ll 2>&1 | FileCheck %s --check-prefix=PAIR
// RUN: not test -e %t.out.ll
// RUN: %clang -O2 -g -DCASE=1 -S -emit-llvm %s -o %t.1o.ll
// RUN: not %zyg grad %t.1o.ll -o %t.out.ll 2>&1 | FileCheck %s --check-prefix=PAIR
// RUN: %clang -O0 -g -DCASE=2 -S -emit-llvm %s -o %t.2.ll
// RUN: not %zyg grad %t.2.ll -o %t.out.ll 2>&1 | FileCheck %s --check-prefix=SRET
// RUN: %clang -O0 -g -DCASE=3 -S -emit-llvm %s -o %t.3.ll
// RUN: not %zyg grad %t.3.ll -o %t.out.ll 2>&1 | FileCheck %s --check-prefix=FLOATS
// RUN: %clang -O0 -g -DCASE=4 -S -emit-llvm %s -o %t.4.ll
// RUN: not %zyg grad %t.4.ll -o %t.out.ll 2>&1 | FileCheck %s --check-prefix=REVERSE
// RUN: %clang -O0 -g -DCASE=5 -S -emit-llvm %s -o %t.5.ll
// RUN: not %zyg grad %t.5.ll -o %t.out.ll 2>&1 | FileCheck %s --check-prefix=SPLITSRET
// RUN: %clang -O0 -g -DCASE=6 -S -emit-llvm %s -o %t.6.ll
// RUN: not %zyg grad %t.6.ll -o %t.out.ll 2>&1 | FileCheck %s --check-prefix=NOFLOAT
// RUN: not test -e %t.out.ll
#include <stdio.h>
extern int enzyme_active_return;
typedef struct { double a, b; } pair;
typedef struct { double a, b, c, d; } quad;
typedef struct { float a, b, c; } tri;
double __enzyme_autodiff(void *, ...);
void *__enzyme_augmentfwd(void *, ...);
double __enzyme_reverse(void *, ...);
pair f(double x) { pair p = {x * x, 3 * x}; return p; }
quad g(double x) { quad q = {x, x * x, 2 * x, 1}; return q; }
tri h(float x) { tri t = {x, x * x, 2 * x}; return t; }
int count(double x) { return x > 0; }
int main(void) {
    double d = 0;
#if CASE == 1
    // PAIR: zyg: error: {{.*}}.ll: in `main` at {{.*}}structret_refused.c:[[@LINE+1]]:{{[0-9]+}}: `f` returns `{ double, double }`, a struct of floats, and zyg does not seed a struct result: ask for a scalar (a function returning one float), or write the outputs through a `dup` pointer argument; or pass `enzyme_const_return` to seed nothing (only the outputs through memory count), or `enzyme_active_return` to seed every float of the result with 1 (the gradient of their sum), as Enzyme does
    d = __enzyme_autodiff((void *)f, 2.0);
#elif CASE == 2
    // SRET: in `main` at {{.*}}structret_refused.c:[[@LINE+1]]:{{[0-9]+}}: `g` returns through memory `%struct.quad`, a struct of floats, and zyg does not seed a struct result
    d = __enzyme_autodiff((void *)g, 2.0);
#elif CASE == 3
    // FLOATS: in `main` at {{.*}}structret_refused.c:[[@LINE+1]]:{{[0-9]+}}: `h` returns `{ <2 x float>, float }`, a struct of floats, and zyg does not seed a struct result
    d = __enzyme_autodiff((void *)h, 2.0f);
#elif CASE == 4
    void *t = __enzyme_augmentfwd((void *)f, 2.0);
    // REVERSE: in `main` at {{.*}}structret_refused.c:[[@LINE+1]]:{{[0-9]+}}: `f` returns `{ double, double }`: the reverse half takes the result's adjoint only for a float result; pass `enzyme_const_return` if the result needs no adjoint
    d = __enzyme_reverse((void *)f, 2.0, t);
#elif CASE == 5
    // SPLITSRET: in `main` at {{.*}}structret_refused.c:[[@LINE+1]]:{{[0-9]+}}: `g` returns its result through memory (`sret` `%struct.quad`); split mode does not support that yet
    void *t = __enzyme_augmentfwd((void *)g, 2.0);
    d = t != 0;
#elif CASE == 6
    // NOFLOAT: in `main` at {{.*}}structret_refused.c:[[@LINE+1]]:{{[0-9]+}}: `enzyme_active_return` asks to seed the result, but `count` returns `i32`, which holds no float
    d = __enzyme_autodiff((void *)count, enzyme_active_return, 2.0);
#endif
    printf("%g\n", d);
    return 0;
}
