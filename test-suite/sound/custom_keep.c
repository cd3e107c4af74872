// Registered derivatives that survive -O2 and -O3 with zyg.h's ZYG_KEEP. clang otherwise
// inlines a small registered function (`ste` below), replaces the calls of one that returns
// its argument (`clip`: an identity whose derivative clips the gradient), and drops a
// `static` registration nobody reads; each silently lost its rule. ZYG_KEEP (noinline,
// optnone, and the annotation zyg recognises) and the `used` registrations of ZYG_PULLBACK
// keep them; zyg's output hands the kept functions back to the optimiser (no `optnone` is
// left). The rules' values differ from the bodies' derivatives, so the check tells them
// apart.
// RUN: %grad-run -O0 %s %t -I%S/../../include | FileCheck %s
// RUN: %grad-run -O2 %s %t -I%S/../../include | FileCheck %s
// RUN: %grad-run -O3 %s %t.native -I%S/../../include -march=native | FileCheck %s
// RUN: not grep -q optnone %t.O2.grad.ll
// RUN: not grep -q optnone %t.native.O3.grad.ll
// CHECK-NOT: FAIL
// CHECK: ALL OK
#include "zyg_check.h"
#include "zyg/zyg.h"

/* Gradient clipping: the identity forward, the adjoint clipped to [-1, 1] backward. */
ZYG_KEEP static double clip(double x);
static double clip(double x) { return x; }
static double d_clip(double x, double dret) { (void)x; return fmin(fmax(dret, -1.0), 1.0); }
ZYG_PULLBACK(clip, d_clip);

/* A straight-through estimator: rounds forward, passes the adjoint through backward. */
ZYG_KEEP double ste(double x);
double ste(double x) { return floor(x + 0.5); }
double d_ste(double x, double dret) { (void)x; return dret; }
ZYG_PULLBACK(ste, d_ste);

double model(double x) { return 3 * clip(5 * x) + ste(x) * x; }

int main(void) {
    for (int k = 0; k < 3; k++) {
        double x = 0.3 + 0.6 * k;
        double d = __enzyme_autodiff((void *)model, x);
        /* clip's adjoint 3 is clipped to 1, times 5; ste's rule gives x + ste(x). */
        check_close("registered rules", d, 5 + x + ste(x), EXACT_RTOL, EXACT_ATOL);
        check_close("not the bodies' derivative", fabs(d - (15 + ste(x))) > 1, 1, 0, 0);
    }
    return zyg_report();
}
