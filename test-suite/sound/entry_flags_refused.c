// Call-level flags and markers zyg does not implement are refused, each with what it means;
// an unknown `enzyme_` marker is named with the markers zyg knows, and split mode's
// `enzyme_tape` and `enzyme_allocated` are refused one without the other.
// RUN: rm -f %t.out.ll
// RUN: %clang -O0 -g -DCASE=1 -S -emit-llvm %s -o %t.1.ll
// RUN: not %zyg grad %t.1.ll -o %t.out.ll 2>&1 | FileCheck %s --check-prefix=WIDTH
// RUN: not test -e %t.out.ll
// RUN: %clang -O2 -g -DCASE=2 -S -emit-llvm %s -o %t.2.ll
// RUN: not %zyg grad %t.2.ll -o %t.out.ll 2>&1 | FileCheck %s --check-prefix=DUPV
// RUN: %clang -O0 -g -DCASE=3 -S -emit-llvm %s -o %t.3.ll
// RUN: not %zyg grad %t.3.ll -o %t.out.ll 2>&1 | FileCheck %s --check-prefix=BYREF
// RUN: %clang -O0 -g -DCASE=4 -S -emit-llvm %s -o %t.4.ll
// RUN: not %zyg grad %t.4.ll -o %t.out.ll 2>&1 | FileCheck %s --check-prefix=PRIMAL
// RUN: %clang -O0 -g -DCASE=5 -S -emit-llvm %s -o %t.5.ll
// RUN: not %zyg grad %t.5.ll -o %t.out.ll 2>&1 | FileCheck %s --check-prefix=RUNTIME
// RUN: %clang -O0 -g -DCASE=6 -S -emit-llvm %s -o %t.6.ll
// RUN: not %zyg grad %t.6.ll -o %t.out.ll 2>&1 | FileCheck %s --check-prefix=STRONG
// RUN: %clang -O0 -g -DCASE=7 -S -emit-llvm %s -o %t.7.ll
// RUN: not %zyg grad %t.7.ll -o %t.out.ll 2>&1 | FileCheck %s --check-prefix=TAPE
// RUN: %clang -O0 -g -DCASE=8 -S -emit-llvm %s -o %t.8.ll
// RUN: not %zyg grad %t.8.ll -o %t.out.ll 2>&1 | FileCheck %s --check-prefix=NOFREE
// RUN: %clang -O0 -g -DCASE=9 -S -emit-llvm %s -o %t.9.ll
// RUN: not %zyg grad %t.9.ll -o %t.out.ll 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: %clang -O0 -g -DCASE=10 -S -emit-llvm %s -o %t.10.ll
// RUN: not %zyg grad %t.10.ll -o %t.out.ll 2>&1 | FileCheck %s --check-prefix=BOTH
// RUN: %clang -O0 -g -DCASE=11 -S -emit-llvm %s -o %t.11.ll
// RUN: not %zyg grad %t.11.ll -o %t.out.ll 2>&1 | FileCheck %s --check-prefix=DUPRET
// RUN: %clang -O0 -g -DCASE=12 -S -emit-llvm %s -o %t.12.ll
// RUN: not %zyg grad %t.12.ll -o %t.out.ll 2>&1 | FileCheck %s --check-prefix=ALLOCATED
// RUN: not test -e %t.out.ll
#include <stdio.h>
extern int enzyme_width, enzyme_dupv, enzyme_byref, enzyme_primal_return, enzyme_runtime_activity;
extern int enzyme_strong_zero, enzyme_tape, enzyme_nofree, enzyme_dupx, enzyme_const_return;
extern int enzyme_active_return, enzyme_dup_return, enzyme_allocated, enzyme_dup;
double __enzyme_autodiff(void *, ...);
void *__enzyme_augmentfwd(void *, ...);
double __enzyme_reverse(void *, ...);
double f(double x) { return x * x; }
double g(double *x) { return x[0] * x[1]; }
int main(void) {
    double x = 3, xs[4] = {1, 2, 3, 4}, dxs[4] = {0};
    double d = 0;
    (void)xs;
    (void)dxs;
#if CASE == 1
    // WIDTH: zyg: error: {{.*}}.1.ll: in `main` at {{.*}}entry_flags_refused.c:[[@LINE+1]]:{{[0-9]+}}: `enzyme_width, 2` asks for vector mode, which zyg supports in `__enzyme_fwddiff` and `__enzyme_autodiff` only so far, not in split mode; make one request per direction
    d = *(double *)__enzyme_augmentfwd((void *)f, enzyme_width, 2, x);
#elif CASE == 2
    // DUPV: in `main` at {{.*}}entry_flags_refused.c:[[@LINE+1]]:{{[0-9]+}}: parameter 0 of `g` is marked `enzyme_dupv`, which belongs to vector mode: give `enzyme_width, N` first
    d = __enzyme_autodiff((void *)g, enzyme_dupv, 16, xs, dxs);
#elif CASE == 3
    // BYREF: in `main` at {{.*}}entry_flags_refused.c:[[@LINE+1]]:{{[0-9]+}}: the marker `enzyme_byref` passes an argument through a pointer to it
    d = __enzyme_autodiff((void *)f, enzyme_byref, 8, &x);
#elif CASE == 4
    // PRIMAL: in `main` at {{.*}}entry_flags_refused.c:[[@LINE+1]]:{{[0-9]+}}: the marker `enzyme_primal_return` asks the request to return the function's own result too; call the function itself for its value instead; zyg does not support it yet
    d = __enzyme_autodiff((void *)f, enzyme_primal_return, x);
#elif CASE == 5
    // RUNTIME: in `main` at {{.*}}entry_flags_refused.c:[[@LINE+1]]:{{[0-9]+}}: the marker `enzyme_runtime_activity` decides at run time which pointers are active
    d = __enzyme_autodiff((void *)g, enzyme_runtime_activity, xs, dxs);
#elif CASE == 6
    // STRONG: in `main` at {{.*}}entry_flags_refused.c:[[@LINE+1]]:{{[0-9]+}}: the marker `enzyme_strong_zero` makes a zero adjoint times an infinite or NaN partial derivative zero
    d = __enzyme_autodiff((void *)f, enzyme_strong_zero, x);
#elif CASE == 7
    void *t = __enzyme_augmentfwd((void *)f, x);
    // Enzyme also reads `enzyme_tape` alone as a pointer to a variable holding a heap tape;
    // zyg reads it only as tape memory the caller allocated, with its size, and says so.
    // TAPE: in `main` at {{.*}}entry_flags_refused.c:[[@LINE+1]]:{{[0-9]+}}: `enzyme_tape, pointer` without `enzyme_allocated, size`: zyg reads it as tape memory the caller allocated, and needs its size
    d = __enzyme_reverse((void *)f, x, 1.0, enzyme_tape, &t);
#elif CASE == 8
    void *t = __enzyme_augmentfwd((void *)f, x);
    // NOFREE: in `main` at {{.*}}entry_flags_refused.c:[[@LINE+1]]:{{[0-9]+}}: the flag `enzyme_nofree` keeps the tape alive after the reverse call; zyg does not support it yet
    d = __enzyme_reverse((void *)f, enzyme_nofree, x, 1.0, t);
#elif CASE == 9
    // UNKNOWN: in `main` at {{.*}}entry_flags_refused.c:[[@LINE+1]]:{{[0-9]+}}: `enzyme_dupx` is not a marker zyg knows: the activity markers are `enzyme_out`, `enzyme_const`, `enzyme_dup` and `enzyme_dupnoneed`
    d = __enzyme_autodiff((void *)g, enzyme_dupx, xs, dxs);
#elif CASE == 10
    // BOTH: in `main` at {{.*}}entry_flags_refused.c:[[@LINE+1]]:{{[0-9]+}}: `enzyme_const_return` and `enzyme_active_return` contradict each other
    d = __enzyme_autodiff((void *)f, enzyme_const_return, enzyme_active_return, x);
#elif CASE == 11
    // DUPRET: in `main` at {{.*}}entry_flags_refused.c:[[@LINE+1]]:{{[0-9]+}}: the marker `enzyme_dup_return` asks for the shadow of a returned pointer
    d = __enzyme_autodiff((void *)f, enzyme_dup_return, x);
#elif CASE == 12
    // ALLOCATED: in `main` at {{.*}}entry_flags_refused.c:[[@LINE+1]]:{{[0-9]+}}: `enzyme_allocated, size` gives the size of the tape memory the caller allocated, and `enzyme_tape, pointer` must give the memory; give both
    void *t = __enzyme_augmentfwd((void *)f, enzyme_allocated, 64, x);
    d = t != 0;
#endif
    printf("%g\n", d);
    return 0;
}
