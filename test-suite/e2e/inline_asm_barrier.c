// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Inline asm zyg reads (as Eigen writes it): an empty template whose output is tied to its
// input (an optimisation barrier: the identity), one on a variable in memory (`+m`, a
// store of the value it holds), an assembler comment, and SSE's minpd/maxpd with the result
// tied to an operand. Against central differences; min and max on both sides of the kink.
#include "zyg_check.h"
#include <emmintrin.h>

static double f(double x, double y) {
    double a = x * y;
    __asm__("" : "+x"(a));
    double b = a + x;
    __asm__("" : "+m"(b));
    __asm__("#a comment");
    __m128d u = _mm_set_pd(x, y), v = _mm_set_pd(y * y, x * 3), lo = u, hi = u;
    __asm__("minpd %[v], %[r]" : [r] "+x"(lo) : [v] "x"(v));
    __asm__("maxpd %[v], %[r]" : [r] "+x"(hi) : [v] "x"(v));
    double l[2], h[2];
    _mm_storeu_pd(l, lo);
    _mm_storeu_pd(h, hi);
    return b * a + l[0] + 2 * l[1] + 3 * h[0] * h[1];
}

int main(void) {
    double pts[4][2] = {{0.5, 1.3}, {2.0, -0.7}, {-1.2, 0.4}, {0.3, 0.2}};
    for (int p = 0; p < 4; p++) {
        double x = pts[p][0], y = pts[p][1];
        zyg_grad2 g = __enzyme_autodiff2((void *)f, x, y);
        CHECK_FD2(f, x, y, g);
    }
    return zyg_report();
}
