// `zyg_tape_budget` takes an integer constant greater than 0, once, and only in reverse mode.
// RUN: %clang -O0 -g -S -emit-llvm -DCASE=1 %s -o %t.1.ll
// RUN: not %zyg grad %t.1.ll -o %t.1.out.ll 2>&1 | FileCheck --check-prefix=VARIABLE %s
// RUN: %clang -O0 -g -S -emit-llvm -DCASE=2 %s -o %t.2.ll
// RUN: not %zyg grad %t.2.ll -o %t.2.out.ll 2>&1 | FileCheck --check-prefix=ZERO %s
// RUN: %clang -O0 -g -S -emit-llvm -DCASE=3 %s -o %t.3.ll
// RUN: not %zyg grad %t.3.ll -o %t.3.out.ll 2>&1 | FileCheck --check-prefix=TWICE %s
// RUN: %clang -O0 -g -S -emit-llvm -DCASE=4 %s -o %t.4.ll
// RUN: not %zyg grad %t.4.ll -o %t.4.out.ll 2>&1 | FileCheck --check-prefix=FORWARD %s
// VARIABLE: zyg: error: {{.*}}tape_budget_marker.c:{{[0-9]+}}:{{[0-9]+}}: `zyg_tape_budget` must be followed by an integer constant greater than 0, the budget in bytes
// ZERO: zyg: error: {{.*}}`zyg_tape_budget` must be followed by an integer constant greater than 0
// TWICE: zyg: error: {{.*}}`zyg_tape_budget` is given twice
// FORWARD: zyg: error: {{.*}}`zyg_tape_budget` asks for a small tape, and forward mode keeps none; leave it out
#include <stddef.h>
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
extern int zyg_tape_budget;
double f(double x) { return x * x; }
double df(double x, size_t budget) {
#if CASE == 1
    return __enzyme_autodiff((void *)f, zyg_tape_budget, budget, x);
#elif CASE == 2
    return __enzyme_autodiff((void *)f, zyg_tape_budget, (size_t)0, x);
#elif CASE == 3
    return __enzyme_autodiff((void *)f, zyg_tape_budget, (size_t)64, zyg_tape_budget, (size_t)64, x);
#else
    return __enzyme_fwddiff((void *)f, zyg_tape_budget, (size_t)64, x, 1.0);
#endif
}
