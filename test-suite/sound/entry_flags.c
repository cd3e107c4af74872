// Call-level flags zyg implements or accepts, checked against finite differences:
// enzyme_const_return (the float result gets no seed: only the output through the `dup`
// pointer counts), enzyme_active_return (a float result's default), enzyme_noret and
// enzyme_nofree (accepted for a gradient), enzyme_not_overwritten (a promise zyg needs not),
// the flags anywhere among the arguments. Split mode with enzyme_const_return takes no
// result adjoint.
// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
#include "zyg_check.h"
extern int enzyme_const_return, enzyme_active_return, enzyme_noret, enzyme_nofree, enzyme_not_overwritten;
typedef struct { void *tape; double result; } aug_t;
aug_t __enzyme_augmentfwd(void *, ...);
double __enzyme_reverse(void *, ...);

// Returns a float and writes one: out[0] = x^3 * y, result 5 x + y.
__attribute__((noinline)) double both(double x, double y, double *out) {
    out[0] = x * x * x * y;
    return 5 * x + y;
}
static double written(double x, double y) { double o; both(x, y, &o); return o; }
static double returned(double x, double y) { double o; return both(x, y, &o); }
static double sum(double x, double y) { return written(x, y) + returned(x, y); }

int main(void) {
    for (int k = 0; k < 3; k++) {
        double x = 0.4 + 0.5 * k, y = 1.3 - 0.7 * k;
        double o, seed;

        seed = 1;  // the written value's seed; the result gets none
        zyg_grad2 g = __enzyme_autodiff2((void *)both, enzyme_const_return, x, y, enzyme_dup, &o, &seed);
        CHECK_FD2(written, x, y, g);
        check_close("seed consumed", seed, 0, 0, 0);

        seed = 0;  // the result seeded (the default, said twice), nothing through memory
        g = __enzyme_autodiff2((void *)both, enzyme_active_return, x, enzyme_noret, y, enzyme_dup, &o, &seed);
        CHECK_FD2(returned, x, y, g);

        seed = 1;  // both, with the flags that change nothing for zyg
        g = __enzyme_autodiff2((void *)both, enzyme_nofree, x, enzyme_not_overwritten, enzyme_out, y,
                               enzyme_not_overwritten, enzyme_dup, &o, &seed);
        CHECK_FD2(sum, x, y, g);

        // Split mode: the reverse half of a request with enzyme_const_return takes no result adjoint.
        seed = 1;
        aug_t t = __enzyme_augmentfwd((void *)both, enzyme_const_return, x, enzyme_const, y, enzyme_dup, &o, &seed);
        check_close("forward result", t.result, 5 * x + y, EXACT_RTOL, EXACT_ATOL);
        g.d0 = __enzyme_reverse((void *)both, enzyme_const_return, x, enzyme_const, y, enzyme_dup, &o, &seed, t.tape);
        check_close("split d/dx", g.d0, FD2_0(written, x, y), FD_RTOL, FD_ATOL);
    }
    return zyg_report();
}
