// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %clang -O2 -I %include -S -emit-llvm %s -o %t.o2.ll
// RUN: not %zyg grad %t.o2.ll -o %t.o2.out.ll 2>&1 | FileCheck %s --check-prefix=O2
// O2: zyg: error: {{.*}}this stores a struct value holding a pointer to differentiated memory
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Forward over reverse where the function calls a helper (kept as a call) with a loop: the
// helper's tape, with its stack header, is copied into the caller's tape, and the shadow
// header's counts must be copied too (they were not: H v came out 0 at -O0, exit 0). At -O1
// and above the copy is one struct value, which forward mode refuses (checked here).
#include "zyg_check.h"

__attribute__((noinline)) static double inner(const double *w, int n) {
    double s = 0;
    for (int i = 0; i < n; i++) s += w[i] * w[i];
    return s;
}

static double f(const double *w, int n) { return inner(w, n); }

static void grad(const double *w, double *dw, int n) { __enzyme_autodiff((void *)f, enzyme_dup, w, dw, enzyme_const, n); }

int main(int argc, char **argv) {
    (void)argv;
    int n = argc + 1; /* 2, unknown to the compiler */
    double w[2] = {0.3, 0.4}, v[2] = {1, 0}, dw[2] = {0}, hv[2] = {0};
    __enzyme_fwddiff((void *)grad, enzyme_dup, w, v, enzyme_dup, dw, hv, enzyme_const, n);
    check_close("dw[0]", dw[0], 0.6, 1e-15, 0);
    check_close("dw[1]", dw[1], 0.8, 1e-15, 0);
    check_close("Hv[0]", hv[0], 2.0, 1e-15, 0);
    check_close("Hv[1]", hv[1], 0.0, 0, 1e-300);
    return zyg_report();
}
