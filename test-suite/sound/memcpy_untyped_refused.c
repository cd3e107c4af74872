// A copy whose bytes nothing in the program reads or writes with a type, asked for on its
// own: zyg cannot tell whether they hold doubles, floats or pointers (each needs a
// different adjoint), and refuses rather than guess doubles as it once did.
// RUN: rm -f %t.out.ll
// RUN: %clang -O0 -g -S -emit-llvm %s -o %t.O0.ll
// RUN: not %zyg grad %t.O0.ll -o %t.out.ll 2>&1 | FileCheck %s
// RUN: %clang -O2 -g -S -emit-llvm %s -o %t.O2.ll
// RUN: not %zyg grad %t.O2.ll -o %t.out.ll 2>&1 | FileCheck %s
// RUN: not test -e %t.out.ll
// CHECK: in function `copy` at {{.*}}memcpy_untyped_refused.c:[[@LINE+5]]:{{[0-9]+}}: cannot tell which bytes of this copy carry derivatives: nothing in the program reads or writes them with a type
// CHECK-NEXT: call void @llvm.memcpy
#include <string.h>
extern int enzyme_const;
void __enzyme_autodiff(void *, ...);
void copy(void *dst, const void *src, int n) { memcpy(dst, src, (size_t)n * 8); }
void dcopy(void *d, void *dd, void *s, void *ds, int n) { __enzyme_autodiff((void *)copy, d, dd, s, ds, enzyme_const, n); }
