// A lambda that writes an active value into a variable it captures by reference: the
// closure is passed to zyg as constant memory (zyg.hpp's trampoline), so the store would
// lose its derivative, and zyg refuses it at the store rather than differentiate it wrong.
// RUN: rm -f %t.out.ll
// RUN: %clangxx -O0 -g -I%S/../../include -S -emit-llvm %s -o %t.ll
// RUN: not %zyg grad %t.ll -o %t.out.ll 2>&1 | FileCheck %s
// RUN: not test -e %t.out.ll
// CHECK: zyg: error: {{.*}}.ll: in function `{{.*}}` at {{.*}}cxx_header_capture_store.cpp:14:{{[0-9]+}}: an active value is stored to memory that is not differentiated
#include "zyg/zyg.hpp"

int main() {
    double last = 0;
    auto f = [&](double t) {
        last = t * t;
        return last;
    };
    auto [dt] = zyg::autodiff<zyg::Reverse>(f, zyg::Active(3.0));
    return dt > 0;
}
