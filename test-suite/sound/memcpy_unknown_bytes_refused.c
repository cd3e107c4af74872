// A helper swaps two records {double w; double *p;} with memcpy through a char *; the only
// typed access to the records zyg can place is the double key at offset 0, since the caller
// reads the pointer field at a byte offset it is given. So nothing types bytes 8..16 of the
// copies: they may hold a pointer, whose shadow the swap must move, or floats, whose
// adjoints it must move. zyg refuses rather than take them for doubles, as it once did
// (the shadow pointers were left behind by the swap and the derivative went to the wrong v).
// RUN: rm -f %t.out.ll
// RUN: %clang -O0 -g -S -emit-llvm %s -o %t.O0.ll
// RUN: not %zyg grad %t.O0.ll -o %t.out.ll 2>&1 | FileCheck %s
// RUN: %clang -O2 -g -S -emit-llvm %s -o %t.O2.ll
// RUN: not %zyg grad %t.O2.ll -o %t.out.ll 2>&1 | FileCheck %s
// RUN: %clang -O3 -march=native -g -S -emit-llvm %s -o %t.O3.ll
// RUN: not %zyg grad %t.O3.ll -o %t.out.ll 2>&1 | FileCheck %s
// RUN: not test -e %t.out.ll
// CHECK: in function `order_two` at {{.*}}memcpy_unknown_bytes_refused.c:[[@LINE+12]]:{{[0-9]+}}: cannot tell which bytes of this copy carry derivatives and which carry pointers (bytes 0..8 double; nothing is known of bytes 8..16)
// CHECK-NEXT: call void @llvm.memcpy
#include <string.h>
extern int enzyme_const;
void __enzyme_autodiff(void *, ...);

struct link { double w; double *p; };

__attribute__((noinline)) void order_two(char *base) {
    char tmp[16];
    double *key0 = (double *)base, *key1 = (double *)(base + 16);
    if (*key0 > *key1) {
        memcpy(tmp, base, 16); memcpy(base, base + 16, 16); memcpy(base + 16, tmp, 16);
    }
}

double f(struct link *l, long off) {
    order_two((char *)l);
    double *p = *(double **)((char *)l + off);
    return *(double *)l * *p;
}

void df(struct link *l, struct link *dl, long off) { __enzyme_autodiff((void *)f, l, dl, enzyme_const, off); }
