// Enzyme entry points zyg does not implement are refused at the call, naming the entry
// point and what to use instead; nothing is written (before, they passed through to a
// link error, or to an undefined symbol in a shared library). A forward-mode request with
// a reverse-mode marker (`enzyme_out`) is refused at the call too.
// RUN: rm -f %t.out.ll
// RUN: %clang -O0 -g -DCASE=1 -S -emit-llvm %s -o %t.1.ll
// RUN: not %zyg grad %t.1.ll -o %t.out.ll 2>&1 | FileCheck %s --check-prefix=FWD
// RUN: not test -e %t.out.ll
// RUN: %clang -O2 -g -DCASE=2 -S -emit-llvm %s -o %t.2.ll
// RUN: not %zyg grad %t.2.ll -o %t.out.ll 2>&1 | FileCheck %s --check-prefix=SPLIT
// RUN: %clang -O0 -g -DCASE=3 -S -emit-llvm %s -o %t.3.ll
// RUN: not %zyg grad %t.3.ll -o %t.out.ll 2>&1 | FileCheck %s --check-prefix=BATCH
// RUN: %clang -O0 -g -DCASE=5 -S -emit-llvm %s -o %t.5.ll
// RUN: not %zyg grad %t.5.ll -o %t.out.ll 2>&1 | FileCheck %s --check-prefix=DENSE
// RUN: %clang -O0 -g -DCASE=6 -S -emit-llvm %s -o %t.6.ll
// RUN: not %zyg grad %t.6.ll -o %t.out.ll 2>&1 | FileCheck %s --check-prefix=OTHER
// RUN: %clang -O2 -g -DCASE=7 -S -emit-llvm %s -o %t.7.ll
// RUN: not %zyg grad %t.7.ll -o %t.out.ll 2>&1 | FileCheck %s --check-prefix=ZYG
// RUN: not test -e %t.out.ll
#include <stdio.h>
extern int enzyme_out;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
double __enzyme_fwdsplit(void *, ...);
double __enzyme_batch(void *, ...);
void *__enzyme_todense(void *, ...);
double __enzyme_iter(double, double);
double __zyg_gradient(void *, ...);
double f(double x) { return x * x; }
int main(void) {
    double d = __enzyme_autodiff((void *)f, 3.0);
#if CASE == 1
    // FWD: zyg: error: {{.*}}.1.ll: in `main` at {{.*}}entry_unsupported.c:[[@LINE+1]]:{{[0-9]+}}: parameter 0 of `f` is marked `enzyme_out`, which forward mode has no use for: a float is followed by its tangent (unmarked or `enzyme_dup`), or marked `enzyme_const`
    d += __enzyme_fwddiff((void *)f, enzyme_out, 3.0);
#elif CASE == 2
    // SPLIT: in `main` at {{.*}}entry_unsupported.c:[[@LINE+1]]:{{[0-9]+}}: `__enzyme_fwdsplit` asks for split forward mode, which zyg does not support yet
    d += __enzyme_fwdsplit((void *)f, 3.0, 1.0);
#elif CASE == 3
    // BATCH: in `main` at {{.*}}entry_unsupported.c:[[@LINE+1]]:{{[0-9]+}}: `__enzyme_batch` asks for a batched (vectorised) call, which zyg does not support yet; call the function once per input instead
    d += __enzyme_batch((void *)f, 3.0, 4.0);
#elif CASE == 5
    // DENSE: in `main` at {{.*}}entry_unsupported.c:[[@LINE+1]]:{{[0-9]+}}: `__enzyme_todense` asks for a sparse-to-dense conversion, which zyg does not support yet
    d += __enzyme_todense((void *)f) != 0;
#elif CASE == 6
    // OTHER: in `main` at {{.*}}entry_unsupported.c:[[@LINE+1]]:{{[0-9]+}}: `__enzyme_iter` is not an entry point zyg implements: zyg fills in `__enzyme_autodiff`, `__enzyme_fwddiff`, `__enzyme_augmentfwd`, `__enzyme_reverse` and `__enzyme_augmentsize`
    d += __enzyme_iter(d, 1.0);
#elif CASE == 7
    // ZYG: in `main` at {{.*}}entry_unsupported.c:[[@LINE+1]]:{{[0-9]+}}: `__zyg_gradient` is not an entry point zyg implements
    d += __zyg_gradient((void *)f, 3.0);
#endif
    printf("%g\n", d);
    return 0;
}
