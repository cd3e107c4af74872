// Registered derivatives of small functions clang would inline, built through the pass
// plugin at -O2 and -O3: zyg runs before the inliner, so the calls are still there and the
// registered derivatives are used, with no ZYG_KEEP. Both functions write their input to a
// global, which zyg refuses to differentiate: the test passes only if the registered
// derivatives are used (zyg's __zyg_pullback_* and Enzyme's __enzyme_register_gradient_*).
// RUN: %plugin-run -O0 %s %t | FileCheck %s
// RUN: %plugin-run -O2 %s %t | FileCheck %s
// RUN: %plugin-run -O3 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
#include <stdlib.h>
#include "zyg_check.h"

double last_input;
static double scaled_sin(double x) {
    last_input = x;
    return 3 * sin(x);
}
static double d_scaled_sin(double x, double dret) { return dret * 3 * cos(x); }
void *__zyg_pullback_scaled_sin[2] = {(void *)scaled_sin, (void *)d_scaled_sin};

static double expmul(double a, double b) {
    last_input = a;
    return exp(a) * b;
}
typedef struct { void *tape; double ret; } aug_t;
static aug_t aug_expmul(double a, double b) {
    double *t = malloc(sizeof(double));
    *t = exp(a);
    aug_t r = {t, *t * b};
    return r;
}
static zyg_grad2 rev_expmul(double a, double b, double dret, void *tape) {
    (void)a;
    double e = *(double *)tape;
    free(tape);
    zyg_grad2 g = {dret * e * b, dret * e};
    return g;
}
void *__enzyme_register_gradient_expmul[3] = {(void *)expmul, (void *)aug_expmul, (void *)rev_expmul};

double model(double x, double y) {
    double s = 0;
    for (int i = 0; i < 3; i++)
        s += scaled_sin(x * i) + expmul(x, y * i);
    return s;
}

int main(void) {
    for (int k = 0; k < 3; k++) {
        double x = 0.2 + 0.3 * k, y = 0.5 - 0.4 * k;
        zyg_grad2 g = __enzyme_autodiff2((void *)model, x, y);
        CHECK_FD2(model, x, y, g);
    }
    return zyg_report();
}
