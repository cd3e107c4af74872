// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// RUN: %plugin-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Registered derivatives win over the body. `mystery` stores its input to a global, which
// zyg refuses to differentiate, so this passes only if its registered pullback is used.
// zyg's convention (__zyg_pullback_*: no tape) and Enzyme's (__enzyme_register_gradient_*:
// augmented forward returning { tape, result }, reverse taking the tape).
#include <stdlib.h>
#include "zyg_check.h"

double last_input;
__attribute__((noinline)) double mystery(double x) {
    last_input = x;
    return 3 * sin(x);
}
double d_mystery(double x, double dret) { return dret * 3 * cos(x); }
void *__zyg_pullback_mystery[2] = {(void *)mystery, (void *)d_mystery};

__attribute__((noinline)) double expmul(double a, double b) {
    last_input = a;
    return exp(a) * b;
}
typedef struct { void *tape; double ret; } aug_t;
aug_t aug_expmul(double a, double b) {
    double *t = malloc(sizeof(double));
    *t = exp(a);
    aug_t r = {t, *t * b};
    return r;
}
zyg_grad2 rev_expmul(double a, double b, double dret, void *tape) {
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
        s += mystery(x * i) + expmul(x, y * i);
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
