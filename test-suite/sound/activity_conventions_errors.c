// Registrations zyg cannot honour are errors naming them, never skipped: a function
// declared like a math function zyg has no rule for, or with the wrong number of arguments;
// a malformed allocation_like; an inactive_global that is not a global variable.
// RUN: rm -f %t.out.ll
// RUN: %clang -O0 -g -DCASE=1 -S -emit-llvm %s -o %t.1.ll
// RUN: not %zyg grad %t.1.ll -o %t.out.ll 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not test -e %t.out.ll
// RUN: %clang -O0 -g -DCASE=2 -S -emit-llvm %s -o %t.2.ll
// RUN: not %zyg grad %t.2.ll -o %t.out.ll 2>&1 | FileCheck %s --check-prefix=ARITY
// RUN: %clang -O0 -g -DCASE=3 -S -emit-llvm %s -o %t.3.ll
// RUN: not %zyg grad %t.3.ll -o %t.out.ll 2>&1 | FileCheck %s --check-prefix=SIZE
// RUN: %clang -O0 -g -DCASE=4 -S -emit-llvm %s -o %t.4.ll
// RUN: not %zyg grad %t.4.ll -o %t.out.ll 2>&1 | FileCheck %s --check-prefix=SHAPE
// RUN: %clang -O0 -g -DCASE=5 -S -emit-llvm %s -o %t.5.ll
// RUN: not %zyg grad %t.5.ll -o %t.out.ll 2>&1 | FileCheck %s --check-prefix=GLOBAL
// RUN: %clang -O0 -g -DCASE=6 -S -emit-llvm %s -o %t.6.ll
// RUN: not %zyg grad %t.6.ll -o %t.out.ll 2>&1 | FileCheck %s --check-prefix=ANNOTATION
// RUN: not test -e %t.out.ll
#include <stddef.h>
double __enzyme_autodiff(void *, ...);
double my_log(double x) { return x - 1; }
double my_pow(double x) { return x * x; }
void *my_alloc(void *pool, size_t bytes) { static char a[64]; (void)pool; (void)bytes; return a; }
void my_free(void *p) { (void)p; }
double g;
#if CASE == 1
// UNKNOWN: zyg: error: {{.*}}.1.ll: `@__enzyme_function_like_log`: `my_log` is declared like `logarithm`, but zyg has no derivative rule for `logarithm`; it knows sin, cos, tan, exp,
void *__enzyme_function_like_log[2] = {(void *)my_log, (void *)"logarithm"};
#elif CASE == 2
// ARITY: zyg: error: {{.*}}.2.ll: `@__enzyme_function_like_pow`: `my_pow` is declared like `pow`, which takes 2 argument(s), but `my_pow` takes 1
void *__enzyme_function_like_pow[2] = {(void *)my_pow, (void *)"pow"};
#elif CASE == 3
// SIZE: zyg: error: {{.*}}.3.ll: `@__enzyme_allocation_like_a`: argument 0 of `my_alloc` must be its size in bytes, an integer
void *__enzyme_allocation_like_a[4] = {(void *)my_alloc, (void *)0, (void *)"-1", (void *)my_free};
#elif CASE == 4
// SHAPE: zyg: error: {{.*}}.4.ll: `@__enzyme_allocation_like_b`: it must hold {allocator, (void *)size argument index, "deallocation argument indices", deallocator}
void *__enzyme_allocation_like_b[3] = {(void *)my_alloc, (void *)0, (void *)my_free};
#elif CASE == 5
// GLOBAL: zyg: error: {{.*}}.5.ll: `@__enzyme_inactive_global_f`: it must hold the addresses of global variables
void *__enzyme_inactive_global_f = (void *)my_log;
#elif CASE == 6
// ANNOTATION: zyg: error: {{.*}}.6.ll: `@llvm.global.annotations`: `annotated` is declared like `sine`, but zyg has no derivative rule for `sine`
__attribute__((annotate("enzyme_function_like=sine"))) double annotated(double x) { return x; }
#endif
double model(double x) { g = x; return my_log(x) * my_pow(x); }
double d(double x) { return __enzyme_autodiff((void *)model, x); }
