// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// Unions { double; long } swapped by assignment: clang copies their bytes as 64-bit
// integers, and reads the double back from the integer it loaded (a bitcast). Such a load,
// whose every use stores it or makes the same double of it, is a double in disguise: zyg
// reads it as one, and the gradient follows the swap (it once lost a partial).
// CHECK-NOT: FAIL
// CHECK: ALL OK
#include "zyg_check.h"

union num { double d; long i; };

double f(union num *v) {
    union num t = v[0];
    v[0] = v[1];
    v[1] = t;
    return 3 * v[0].d + v[1].d * v[1].d;
}

int main(void) {
    double pairs[3][2] = {{2.0, 5.0}, {-1.5, 0.25}, {0.7, -3.0}};
    for (int k = 0; k < 3; k++) {
        union num v[2] = {{.d = pairs[k][0]}, {.d = pairs[k][1]}}, dv[2] = {{.d = 0}, {.d = 0}};
        __enzyme_autodiff((void *)f, enzyme_dup, v, dv);
        /* v[0] on entry ends in v[1], squared; v[1] ends in v[0], times 3 */
        check_close("d/dv0", dv[0].d, 2 * pairs[k][0], EXACT_RTOL, EXACT_ATOL);
        check_close("d/dv1", dv[1].d, 3, EXACT_RTOL, EXACT_ATOL);
    }
    return zyg_report();
}
