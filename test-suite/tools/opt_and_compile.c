// `zyg opt` runs zyg's gradient step inside an LLVM pass pipeline, and `zyg compile` lowers
// the result to an object file, assembly and a shared library; the object is linked and
// its gradients checked against finite differences.
// RUN: %clang -O2 -g -I %include -S -emit-llvm %s -o %t.ll
// RUN: %zyg opt %t.ll -o %t.opt.ll --passes='grad,default<O3>'
// RUN: %zyg compile %t.opt.ll -o %t.o
// RUN: %clang %t.o -lm -o %t.exe
// RUN: %t.exe | FileCheck %s
// RUN: %zyg compile %t.opt.ll -o %t.s --cpu x86-64-v3
// RUN: FileCheck --check-prefix=ASM %s < %t.s
// RUN: %zyg compile %t.opt.ll -o %t.so
// RUN: not %zyg compile %t.opt.ll -o %t.unknown 2>&1 | FileCheck --check-prefix=NAME %s
// RUN: not %zyg opt %t.ll -o %t.bad.ll --passes='grad,no-such-pass' 2>&1 | FileCheck --check-prefix=PASS %s
// RUN: not test -e %t.bad.ll
// CHECK-NOT: FAIL
// CHECK: ALL OK
// ASM: main:
// NAME: cannot tell what to write; name the output `.o`, `.s` or `.so`
// PASS: unknown pass name 'no-such-pass'
#include "zyg_check.h"

double f(double x, double y) { return sin(x * y) + x * exp(y); }

int main(void) {
    for (double x = -1.0; x < 1.5; x += 0.8) {
        zyg_grad2 g = __enzyme_autodiff2((void *)f, x, 0.5 * x + 0.3);
        CHECK_FD2(f, x, 0.5 * x + 0.3, g);
    }
    return zyg_report();
}
