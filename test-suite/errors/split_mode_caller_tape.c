// Tape memory the caller allocated, refused when zyg runs: a constant `enzyme_allocated`
// size smaller than the tape (at -O0 and -O2, in either half), and the malformed spellings
// of split mode's markers and of `__enzyme_augmentsize`. Nothing is written.
// RUN: rm -f %t.out.ll
// RUN: %clang -O0 -g -DCASE=1 -S -emit-llvm %s -o %t.1.ll
// RUN: not %zyg grad %t.1.ll -o %t.out.ll 2>&1 | FileCheck %s --check-prefix=SMALL
// RUN: %clang -O2 -g -DCASE=1 -S -emit-llvm %s -o %t.1o.ll
// RUN: not %zyg grad %t.1o.ll -o %t.out.ll 2>&1 | FileCheck %s --check-prefix=SMALL
// RUN: %clang -O0 -g -DCASE=2 -S -emit-llvm %s -o %t.2.ll
// RUN: not %zyg grad %t.2.ll -o %t.out.ll 2>&1 | FileCheck %s --check-prefix=REVSMALL
// RUN: %clang -O0 -g -DCASE=3 -S -emit-llvm %s -o %t.3.ll
// RUN: not %zyg grad %t.3.ll -o %t.out.ll 2>&1 | FileCheck %s --check-prefix=SIZEVALUES
// RUN: %clang -O0 -g -DCASE=4 -S -emit-llvm %s -o %t.4.ll
// RUN: not %zyg grad %t.4.ll -o %t.out.ll 2>&1 | FileCheck %s --check-prefix=GRADIENT
// RUN: %clang -O0 -g -DCASE=5 -S -emit-llvm %s -o %t.5.ll
// RUN: not %zyg grad %t.5.ll -o %t.out.ll 2>&1 | FileCheck %s --check-prefix=NOTPOINTER
// RUN: %clang -O0 -g -DCASE=6 -S -emit-llvm %s -o %t.6.ll
// RUN: not %zyg grad %t.6.ll -o %t.out.ll 2>&1 | FileCheck %s --check-prefix=TWICE
// RUN: %clang -O0 -g -DCASE=7 -S -emit-llvm %s -o %t.7.ll
// RUN: not %zyg grad %t.7.ll -o %t.out.ll 2>&1 | FileCheck %s --check-prefix=SIZETYPE
// RUN: %clang -O0 -g -DCASE=8 -S -emit-llvm %s -o %t.8.ll
// RUN: not %zyg grad %t.8.ll -o %t.out.ll 2>&1 | FileCheck %s --check-prefix=SIZEDUP
// RUN: %clang -O0 -g -DCASE=9 -S -emit-llvm %s -o %t.9.ll
// RUN: not %zyg grad %t.9.ll -o %t.out.ll 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// RUN: not test -e %t.out.ll
#include <stddef.h>
extern int enzyme_allocated, enzyme_tape, enzyme_dup, enzyme_const;
size_t __enzyme_augmentsize(void *, ...);
double __enzyme_augmentsize_double(void *, ...);
double __enzyme_augmentfwd(void *, ...);
void __enzyme_reverse(void *, ...);
double __enzyme_autodiff(void *, ...);

double path(const double *x, int n) {
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s = s * x[i] + x[i];
    return s;
}

int main(void) {
    double x[4] = {1, 2, 3, 4}, dx[4] = {0}, r = 0;
    _Alignas(16) char tape[4096];
#if CASE == 1
    // SMALL: zyg: error: {{.*}}: in `main` at {{.*}}split_mode_caller_tape.c:[[@LINE+1]]:{{[0-9]+}}: the tape memory given with `enzyme_allocated, 8` is too small: the tape of `path` with this activity takes {{[0-9]+}} bytes (what `__enzyme_augmentsize` gives for it); allocate and pass that size
    r = __enzyme_augmentfwd((void *)path, enzyme_allocated, 8, enzyme_tape, tape, x, dx, enzyme_const, 4);
#elif CASE == 2
    r = __enzyme_augmentfwd((void *)path, enzyme_allocated, sizeof tape, enzyme_tape, tape, x, dx, enzyme_const, 4);
    // REVSMALL: in `main` at {{.*}}split_mode_caller_tape.c:[[@LINE+1]]:{{[0-9]+}}: the tape memory given with `enzyme_allocated, 16` is too small
    __enzyme_reverse((void *)path, x, dx, enzyme_const, 4, 1.0, enzyme_allocated, 16, enzyme_tape, tape);
#elif CASE == 3
    // SIZEVALUES: in `main` at {{.*}}split_mode_caller_tape.c:[[@LINE+1]]:{{[0-9]+}}: `__enzyme_augmentsize` takes an activity marker (`enzyme_dup`, `enzyme_const`, `enzyme_out`...) for each of the 2 parameters of `path`, as its `__enzyme_augmentfwd` call gives them, and no values
    r = __enzyme_augmentsize((void *)path, enzyme_dup, x, dx, enzyme_const, 4);
#elif CASE == 4
    // GRADIENT: in `main` at {{.*}}split_mode_caller_tape.c:[[@LINE+1]]:{{[0-9]+}}: `enzyme_allocated` gives split mode's tape memory, and a gradient request keeps no tape for the caller
    r = __enzyme_autodiff((void *)path, enzyme_allocated, sizeof tape, enzyme_tape, tape, x, dx, enzyme_const, 4);
#elif CASE == 5
    // NOTPOINTER: in `main` at {{.*}}split_mode_caller_tape.c:[[@LINE+1]]:{{[0-9]+}}: `enzyme_tape` must be followed by a pointer to the tape memory
    r = __enzyme_augmentfwd((void *)path, enzyme_allocated, sizeof tape, enzyme_tape, 4096, x, dx, enzyme_const, 4);
#elif CASE == 6
    // TWICE: in `main` at {{.*}}split_mode_caller_tape.c:[[@LINE+1]]:{{[0-9]+}}: `enzyme_tape` is given twice
    r = __enzyme_augmentfwd((void *)path, enzyme_allocated, sizeof tape, enzyme_tape, tape, enzyme_tape, tape, x, dx, enzyme_const, 4);
#elif CASE == 7
    // SIZETYPE: in `main` at {{.*}}split_mode_caller_tape.c:[[@LINE+1]]:{{[0-9]+}}: `__enzyme_augmentsize` gives the tape's size in bytes; declare it to return `size_t`, not `double`
    r = __enzyme_augmentsize_double((void *)path, enzyme_dup, enzyme_const);
#elif CASE == 8
    // SIZEDUP: in `main` at {{.*}}split_mode_caller_tape.c:[[@LINE+1]]:{{[0-9]+}}: parameter 1 of `path` is marked `dup` but is not a pointer
    r = __enzyme_augmentsize((void *)path, enzyme_dup, enzyme_dup);
#elif CASE == 9
    // An `int` size is sign-extended as C passes it: -1 is too small, not 2^64 - 1.
    // NEGATIVE: in `main` at {{.*}}split_mode_caller_tape.c:[[@LINE+1]]:{{[0-9]+}}: the tape memory given with `enzyme_allocated, -1` is too small
    r = __enzyme_augmentfwd((void *)path, enzyme_allocated, -1, enzyme_tape, tape, x, dx, enzyme_const, 4);
#endif
    return (int)r;
}
