// `__zyg_release_tape_cache` declared with another signature than zyg.h's `void (void)`
// cannot be filled in (its callers expect a result or pass arguments): refused before
// anything is written, naming the declaration and the one to use.
// RUN: rm -f %t.out.ll
// RUN: %clang -O0 -g -S -emit-llvm %s -o %t.ll
// RUN: not %zyg grad %t.ll -o %t.out.ll 2>&1 | FileCheck %s
// RUN: not test -e %t.out.ll
// RUN: %clang -O2 -g -DRESULT -S -emit-llvm %s -o %t.result.ll
// RUN: not %zyg grad %t.result.ll -o %t.out.ll 2>&1 | FileCheck %s --check-prefix=RESULT
// RUN: not test -e %t.out.ll
// CHECK: zyg: error: {{.*}}: `__zyg_release_tape_cache` is declared as `void (i32)`; declare it as `void __zyg_release_tape_cache(void);` (zyg/zyg.h does)
// RESULT: zyg: error: {{.*}}: `__zyg_release_tape_cache` is declared as `i64 ()`; declare it as `void __zyg_release_tape_cache(void);`
#ifdef RESULT
long __zyg_release_tape_cache(void);
#else
void __zyg_release_tape_cache(int keep);
#endif
double __enzyme_autodiff(void *, ...);

double square(double x) { return x * x; }

int main(void) {
    double d = __enzyme_autodiff((void *)square, 3.0);
#ifdef RESULT
    return (int)__zyg_release_tape_cache() + (d != 6.0);
#else
    __zyg_release_tape_cache(1);
    return d != 6.0;
#endif
}
