// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O1 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// RUN: %grad-run -O3 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Forward over reverse where the function calls a helper (kept as a call) with a loop: the
// helper's tape, with its stack headers, is copied into the caller's tape, and the shadow
// headers' counts must be copied too (they were not: H v came out 0 at -O0, exit 0). At -O1
// and above the copy is one struct value `{ ptr, i64, ..., { i64, i8 }, ... }` (LLVM keeps
// a struct with padding whole), whose shadow is the struct of the pointers' shadows and the
// shadow headers' counts (it was refused). Trip counts from 1 to 9 take the unrolled loop,
// its remainder, or both; checked against the known gradient 3 w^2 and H v = 6 w v.
#include "zyg_check.h"

#define N 9

__attribute__((noinline)) static double inner(const double *w, int n) {
    double s = 0;
    for (int i = 0; i < n; i++) s += w[i] * w[i] * w[i];
    return s;
}

static double f(const double *w, int n) { return inner(w, n); }

static void grad(const double *w, double *dw, int n) { __enzyme_autodiff((void *)f, enzyme_dup, w, dw, enzyme_const, n); }

int main(int argc, char **argv) {
    (void)argv;
    double w[N], v[N];
    for (int i = 0; i < N; i++) {
        w[i] = 0.3 + 0.1 * i - 0.05 * i * i;
        v[i] = (i % 3) - 0.5 * i;
    }
    for (int n = argc; n <= N; n++) { /* argc is 1, unknown to the compiler */
        double dw[N] = {0}, hv[N] = {0};
        __enzyme_fwddiff((void *)grad, enzyme_dup, w, v, enzyme_dup, dw, hv, enzyme_const, n);
        for (int i = 0; i < N; i++) {
            check_close("dw", dw[i], i < n ? 3 * w[i] * w[i] : 0, 1e-14, 1e-300);
            check_close("Hv", hv[i], i < n ? 6 * w[i] * v[i] : 0, 1e-14, 1e-300);
        }
    }
    return zyg_report();
}
