// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// long double (x86_fp80) arithmetic and the `l` spellings sinl, expl, powl, sqrtl, logl.
#include "zyg_check.h"

long double __enzyme_autodiffl(void *, ...);

long double f(long double x) { return sinl(x) * expl(x) + powl(x, 2.5L) + sqrtl(x) * logl(x) + x / 3.0L; }

int main(void) {
    long double xs[] = {0.5L, 1.25L, 3.0L};
    for (int i = 0; i < 3; i++) {
        long double x = xs[i];
        long double want = cosl(x) * expl(x) + sinl(x) * expl(x) + 2.5L * powl(x, 1.5L) +
                           logl(x) / (2 * sqrtl(x)) + sqrtl(x) / x + 1.0L / 3.0L;
        check_close("df/dx", (double)__enzyme_autodiffl((void *)f, x), (double)want, 1e-15, 1e-15);
    }
    return zyg_report();
}
