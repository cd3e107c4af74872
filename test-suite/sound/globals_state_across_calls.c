// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// A function that keeps state in a global (it reads the previous value, then stores the
// new one), differentiated again and again. The global's shadow once carried what one call
// left in it into the next, where the store's adjoint took it as a seed: from the second
// call on the gradient was 2.5, not 0.5. Every gradient call now starts from zeroed
// shadows, and leaves in __zyg_shadow_g_prev that call's gradient with respect to the state.
// CHECK-NOT: FAIL
// CHECK: ALL OK
#include "zyg_check.h"

double g_prev = 0.5;
extern double __zyg_shadow_g_prev;

double f(double x) {
    double prev = g_prev;
    g_prev = x;
    return x * prev + sin(prev);
}

int main(void) {
    double xs[] = {2.0, 2.0, 3.0, -1.5};
    for (int k = 0; k < 4; k++) {
        g_prev = 0.5 + 0.25 * k;
        double state = g_prev;
        double d = __enzyme_autodiff((void *)f, xs[k]);
        check_close("df/dx at fixed state", d, state, EXACT_RTOL, EXACT_ATOL);
        check_close("df/dstate, this call's", __zyg_shadow_g_prev, xs[k] + cos(state), EXACT_RTOL, EXACT_ATOL);
    }
    return zyg_report();
}
