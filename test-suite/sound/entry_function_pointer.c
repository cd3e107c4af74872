// A request that goes through a function pointer is still a request zyg cannot see to fill
// in: it is refused, never left to fail at link time.
// RUN: rm -f %t.out.ll
// RUN: %clang -O0 -g -DCASE=1 -S -emit-llvm %s -o %t.1.ll
// RUN: not %zyg grad %t.1.ll -o %t.out.ll 2>&1 | FileCheck %s --check-prefix=LOCAL
// RUN: not test -e %t.out.ll
// RUN: %clang -O2 -g -DCASE=2 -S -emit-llvm %s -o %t.2.ll
// RUN: not %zyg grad %t.2.ll -o %t.out.ll 2>&1 | FileCheck %s --check-prefix=TABLE
// RUN: %clang -O2 -g -DCASE=3 -S -emit-llvm %s -o %t.3.ll
// RUN: not %zyg grad %t.3.ll -o %t.out.ll 2>&1 | FileCheck %s --check-prefix=PASSED
// RUN: not test -e %t.out.ll
#include <stdio.h>
typedef double (*request_fn)(void *, ...);
double __enzyme_autodiff(void *, ...);
double f(double x) { return x * x; }
#if CASE == 2
// TABLE: zyg: error: {{.*}}.2.ll: in the initializer of `@requests`: `__enzyme_autodiff` is stored as a function pointer, and zyg fills in only direct calls to it; call it directly
request_fn requests[1] = {__enzyme_autodiff};
#endif
#if CASE == 3
__attribute__((noinline)) double apply(request_fn r, double x) { return r((void *)f, x); }
#endif
int main(void) {
#if CASE == 1
    request_fn r = __enzyme_autodiff;
    // LOCAL: zyg: error: {{.*}}.1.ll: in `main` at {{.*}}entry_function_pointer.c:[[@LINE-1]]:{{[0-9]+}}: `__enzyme_autodiff` is used as a value here (through a function pointer?), and zyg fills in only direct calls to it; call it directly
    double d = r((void *)f, 3.0);
#elif CASE == 2
    double d = requests[0]((void *)f, 3.0);
#else
    // PASSED: in `main` at {{.*}}entry_function_pointer.c:[[@LINE+1]]:{{[0-9]+}}: `__enzyme_autodiff` is used as a value here
    double d = apply(__enzyme_autodiff, 3.0);
#endif
    printf("%g\n", d);
    return 0;
}
