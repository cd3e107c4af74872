// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// RUN: %grad-run -O3 %s %t.native -march=native | FileCheck %s
// Globals initialised to point at other globals: `double *cur = state;` and a model whose
// weight pointer starts at a weight array. f writes `state` by name and reads it through
// `cur`, and reads the weights only through the model's pointer. The shadows of `cur` and
// of the model once started null (zero-initialised): the reads through them were taken as
// reads of constants and their derivatives were lost (0, exit status 0), and
// `__zyg_shadow_wbuf` was not defined at all (a link error). A shadow's initialiser now
// mirrors its global's: pointers to the other globals' shadows.
// CHECK-NOT: FAIL
// CHECK: ALL OK
#include "zyg_check.h"

double state[2];
double *cur = state;
struct model { double bias; double *w; int n; };
double wbuf[3] = {0.5, -1.5, 2.0};
struct model m = {0.25, wbuf, 3};
extern double __zyg_shadow_wbuf[3];
extern struct model __zyg_shadow_m;

double f(double x) {
    state[0] = x * x;
    state[1] = sin(x);
    double s = m.bias;
    for (int i = 0; i < m.n; i++) s += m.w[i] * cur[i % 2];
    return s;
}

int main(void) {
    double xs[] = {1.5, -2.0, 0.3};
    for (int k = 0; k < 3; k++) {
        double x = xs[k];
        double d = __enzyme_autodiff((void *)f, x);
        double want = (wbuf[0] + wbuf[2]) * 2 * x + wbuf[1] * cos(x);
        check_close("d/dx", d, want, EXACT_RTOL, EXACT_ATOL);
        // Each call starts from zero: these are this call's gradients, not sums.
        check_close("d/dw0", __zyg_shadow_wbuf[0], x * x, EXACT_RTOL, EXACT_ATOL);
        check_close("d/dw1", __zyg_shadow_wbuf[1], sin(x), EXACT_RTOL, EXACT_ATOL);
        check_close("d/dw2", __zyg_shadow_wbuf[2], x * x, EXACT_RTOL, EXACT_ATOL);
        check_close("d/dbias", __zyg_shadow_m.bias, 1, EXACT_RTOL, EXACT_ATOL);
        if (__zyg_shadow_m.w != __zyg_shadow_wbuf) printf("FAIL the model's shadow does not point at the weights' shadow\n");
    }
    return zyg_report();
}
