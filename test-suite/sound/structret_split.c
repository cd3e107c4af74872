// Split mode with a struct result: with enzyme_const_return the reverse half takes no
// result adjoint (zyg passes zero), and only what the function writes through its `dup`
// pointer counts. Without the flag, structret_refused.c.
// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
#include "zyg_check.h"
extern int enzyme_const_return;
typedef struct { double a, b; } pair;
void *__enzyme_augmentfwd(void *, ...);
double __enzyme_reverse(void *, ...);

pair w(double x, double *out) { *out = sin(x) * x; pair p = {x, 2 * x}; return p; }
static double w_out(double x) { double o; w(x, &o); return o; }

int main(void) {
    for (int k = 0; k < 3; k++) {
        double x = 0.2 + 0.7 * k, o, seed = 1;
        void *tape = __enzyme_augmentfwd((void *)w, enzyme_const_return, x, enzyme_dup, &o, &seed);
        check_close("forward wrote", o, sin(x) * x, EXACT_RTOL, EXACT_ATOL);
        double dx = __enzyme_reverse((void *)w, enzyme_const_return, x, enzyme_dup, &o, &seed, tape);
        check_close("d out / dx", dx, FD1(w_out, x), FD_RTOL, FD_ATOL);
    }
    return zyg_report();
}
