// Bytes moved as an 8-byte integer by a function asked for on its own, where nothing in the
// program says what the bytes hold (no access of them as a float, a pointer or an integer,
// and no type metadata): zyg cannot tell whether they carry a derivative, and says so
// instead of dropping the gradient or guessing. (Called from code that reads them as
// doubles, the same copy is differentiated: test-suite/sound/memcpy_interprocedural.c.)
// RUN: rm -f %t.out.ll
// RUN: %clang -O2 -g -S -emit-llvm %s -o %t.ll
// RUN: not %zyg grad %t.ll -o %t.out.ll 2>&1 | FileCheck %s
// RUN: not test -e %t.out.ll
// CHECK: in function `move8` at {{.*}}integer_copy.c:{{[0-9]+}}:{{[0-9]+}}: this copies 64 bits of differentiated memory as an integer, and zyg cannot tell whether they hold a float, a pointer or an integer (nothing in the program says what they hold)
#include <string.h>
void __enzyme_autodiff(void *, ...);
__attribute__((noinline)) void move8(void *dst, const void *src) { memcpy(dst, src, 8); }
void dmove8(void *d, void *dd, void *s, void *ds) { __enzyme_autodiff((void *)move8, d, dd, s, ds); }
