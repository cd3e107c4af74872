// RUN: not %grad-run -O0 %s %t 2>&1 | FileCheck %s
// RUN: not %grad-run -O2 %s %t 2>&1 | FileCheck %s
// A call through a function pointer on an active value, where the pointer is a function
// zyg never saw: `cbrt` found with dlsym, not a function whose address the module takes.
// zyg differentiates calls through pointers by comparing the pointer with the module's
// address-taken functions of the call's type (`twice` here); this one matches none, so the
// program stops at the call with a message that names it, rather than return a derivative
// without cbrt's part.
// CHECK-NOT: ALL OK
// CHECK: zyg: runtime error: {{.*}}indirect_unknown_callee_stops.c:[[@LINE+11]]:{{[0-9]+}} (in function `model`)
// CHECK-SAME: a call through a function pointer reached a function zyg did not differentiate
// CHECK-SAME: llvm-link
#define _GNU_SOURCE
#include "zyg_check.h"
#include <dlfcn.h>

static double twice(double x) { return 2 * x; }
double (*volatile known)(double) = twice;

__attribute__((noinline)) double model(double x, double (*f)(double)) {
    return f(x) * x;
}

int main(void) {
    double (*f)(double) = (double (*)(double))dlsym(RTLD_DEFAULT, "cbrt");
    if (!f)
        return 2;
    double d = __enzyme_autodiff((void *)model, 8.0, enzyme_const, f);
    check_close("d/dx", d, 2 + 8.0 / 12, 1e-12, 1e-12);
    return zyg_report();
}
