// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// A double's bits looked at as an integer, and never made a float again: a sign test, an
// exponent read, a hash of the bits picking a table entry. That is piecewise constant in
// the double, so no derivative passes through the integer and zyg differentiates the rest.
// CHECK-NOT: FAIL
// CHECK: ALL OK
#include <stdint.h>
#include <string.h>
#include "zyg_check.h"

static const double scale[8] = {1.0, 1.5, 2.0, 0.5, 3.0, 0.25, 1.25, 0.75};

__attribute__((noinline)) static int exponent_of(double x) {
    uint64_t b;
    memcpy(&b, &x, 8);
    return (int)((b >> 52) & 0x7ff) - 1023;
}

double f(double x) {
    uint64_t b;
    memcpy(&b, &x, 8);
    double sign = (b >> 63) ? -1.0 : 1.0;
    double s = scale[(b * 0x9E3779B97F4A7C15ull) >> 61];
    return sign * x * x * s + (double)exponent_of(x) * x;
}

int main(void) {
    double xs[] = {0.7, -1.3, 2.9, -0.45, 5.5};
    for (int k = 0; k < 5; k++) {
        double x = xs[k];
        uint64_t b;
        memcpy(&b, &x, 8);
        double s = scale[(b * 0x9E3779B97F4A7C15ull) >> 61], sign = x < 0 ? -1.0 : 1.0;
        double d = __enzyme_autodiff((void *)f, x);
        check_close("df/dx", d, 2 * sign * x * s + exponent_of(x), EXACT_RTOL, EXACT_ATOL);
    }
    return zyg_report();
}
