// RUN: not %grad-run -O0 %s %t.small -DCASE=1 2>&1 | FileCheck %s --check-prefix=SMALL
// RUN: not %grad-run -O2 %s %t.small -DCASE=1 2>&1 | FileCheck %s --check-prefix=SMALL
// RUN: not %grad-run -O2 %s %t.rev -DCASE=2 2>&1 | FileCheck %s --check-prefix=REVERSE
// RUN: not %grad-run -O0 %s %t.neg -DCASE=4 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// RUN: not %grad-run -O0 %s %t.align -DCASE=3 2>&1 | FileCheck %s --check-prefix=ALIGN
// RUN: not %grad-run -O2 %s %t.align -DCASE=3 2>&1 | FileCheck %s --check-prefix=ALIGN
// Tape memory the caller allocated (`enzyme_allocated, SIZE`, `enzyme_tape, PTR`) whose size
// is known only when the program runs is checked then: memory smaller than the tape, or not
// aligned for it, stops the program with a message before the tape is written (or read),
// never written out of bounds. (A constant size too small is an error when zyg runs:
// errors/split_mode_caller_tape.c.)
// SMALL-NOT: ALL OK
// SMALL: tape of [[N:[0-9]+]] bytes
// SMALL: zyg: runtime error: `__enzyme_augmentfwd` of `path` writes its tape to memory (`enzyme_tape`) of [[GIVEN:[0-9]+]] bytes (`enzyme_allocated`), smaller than the tape, which takes [[N]]: allocate the bytes `__enzyme_augmentsize` gives
// SMALL-NOT: forward done
// REVERSE: forward done
// REVERSE: zyg: runtime error: `__enzyme_reverse` of `path` reads its tape from memory (`enzyme_tape`) of {{[0-9]+}} bytes (`enzyme_allocated`), smaller than the tape, which takes {{[0-9]+}}:
// NEGATIVE: zyg: runtime error: `__enzyme_augmentfwd` of `path` writes its tape to memory (`enzyme_tape`) of -8 bytes (`enzyme_allocated`), smaller than the tape
// ALIGN-NOT: ALL OK
// ALIGN: zyg: runtime error: `__enzyme_augmentfwd` of `path` writes its tape to memory (`enzyme_tape`) that is not aligned for the tape
#include <stdlib.h>
#include "zyg_check.h"

extern int enzyme_allocated, enzyme_tape;
size_t __enzyme_augmentsize(void *, ...);
double __enzyme_augmentfwd(void *, ...);
void __enzyme_reverse(void *, ...);

double path(const double *x, int n) {
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += x[i] > 0.0 ? sin(x[i]) * s + x[i] : s * x[i] - exp(x[i]);
    return s;
}

// Not a constant to zyg or LLVM: the sizes are known only at run time.
volatile size_t shrink = 8, offset = 4;

int main(void) {
    double x[4] = {0.4, -0.7, 1.1, 0.2}, dx[4] = {0};
    size_t size = __enzyme_augmentsize((void *)path, enzyme_dup, enzyme_const);
    printf("tape of %zu bytes\n", size);
    fflush(stdout);
    char *memory = malloc(2 * size);
#if CASE == 1
    size_t given = size - shrink, rev = size;
    char *tape = memory;
#elif CASE == 2
    size_t given = size, rev = size - shrink;
    char *tape = memory;
#elif CASE == 3
    size_t given = size, rev = size;
    char *tape = memory + offset;
#else
    // An `int` size that went negative: sign-extended as C passes it, too small.
    int given = -(int)shrink;
    size_t rev = size;
    char *tape = memory;
#endif
    double r = __enzyme_augmentfwd((void *)path, enzyme_allocated, given, enzyme_tape, tape, x, dx, enzyme_const, 4);
    printf("forward done %g\n", r);
    fflush(stdout);
    __enzyme_reverse((void *)path, x, dx, enzyme_const, 4, 1.0, enzyme_allocated, rev, enzyme_tape, tape);
    check_close("ran", 1, 1, 0, 0);
    free(memory);
    return zyg_report();
}
