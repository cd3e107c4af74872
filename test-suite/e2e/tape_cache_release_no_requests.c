// `__zyg_release_tape_cache()` in a file without gradient requests (a program's main loop
// that gives memory back, its gradients in another file) is filled in too, with nothing
// to release: the file compiles, links and runs through `zyg grad` and through the pass
// plugin, and calling it through a function pointer works as well (the declaration
// itself is given a body). Declared without a prototype, as old C code might, it is
// filled in the same way.
// RUN: %grad-run -O0 %s %t -I%S/../../include | FileCheck %s
// RUN: %grad-run -O2 %s %t -I%S/../../include | FileCheck %s
// RUN: %plugin-run -O0 %s %t -I%S/../../include | FileCheck %s
// RUN: %plugin-run -O2 %s %t -I%S/../../include | FileCheck %s
// RUN: %grad-run -O2 %s %t.kr -DNO_PROTOTYPE -std=gnu89 | FileCheck %s
// RUN: %plugin-run -O0 %s %t.kr -DNO_PROTOTYPE -std=gnu89 | FileCheck %s
// CHECK: released 3 times
#ifdef NO_PROTOTYPE
void __zyg_release_tape_cache();
#else
#include "zyg/zyg.h"
#endif
#include <stdio.h>

static void (*volatile release)(void) = __zyg_release_tape_cache;

int main(void) {
    int n = 0;
    for (int i = 0; i < 2; i++, n++)
        __zyg_release_tape_cache();
    release();
    printf("released %d times\n", n + 1);
    return 0;
}
