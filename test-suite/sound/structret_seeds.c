// A struct-returning function with the flags that say how its result is seeded, checked
// against finite differences: enzyme_active_return seeds every float of the result with 1
// (Enzyme's convention: the gradient of the sum of the fields), for structs in registers
// ({ double, double }; { <2 x float>, float }; double _Complex) and through sret memory;
// enzyme_const_return seeds nothing, so only what the function writes through a `dup`
// pointer counts.
// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// RUN: %grad-run -O3 %s %t.native -march=native | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
#include <complex.h>
#include "zyg_check.h"
extern int enzyme_const_return, enzyme_active_return;

typedef struct { double a, b; } pair;
typedef struct { double a, b, c, d; } quad;  /* sret */
typedef struct { float a, b, c; } tri;       /* { <2 x float>, float } */

pair f(double x, double y) { pair p = {x * x * y, sin(x) + y}; return p; }
quad g(double x, double y) { quad q = {x * y, exp(x), y * y, x / y}; return q; }
tri h(float x) { tri t = {x * x, sinf(x), 3 * x}; return t; }
double complex c(double x) { return cexp(I * x) * x; }
/* Writes x^3 y through `out` and returns a struct (no seed with enzyme_const_return). */
pair w(double x, double y, double *out) { *out = x * x * x * y; pair p = {x, y}; return p; }

static double f_sum(double x, double y) { pair p = f(x, y); return p.a + p.b; }
static double g_sum(double x, double y) { quad q = g(x, y); return q.a + q.b + q.c + q.d; }
static float h_sum(float x) { tri t = h(x); return t.a + t.b + t.c; }
static double c_sum(double x) { double complex z = c(x); return creal(z) + cimag(z); }
static double w_out(double x, double y) { double o; w(x, y, &o); return o; }

int main(void) {
    for (int k = 0; k < 3; k++) {
        double x = 0.3 + 0.4 * k, y = 1.1 + 0.3 * k;
        zyg_grad2 d = __enzyme_autodiff2((void *)f, enzyme_active_return, x, y);
        CHECK_FD2(f_sum, x, y, d);
        d = __enzyme_autodiff2((void *)g, enzyme_active_return, x, y);
        CHECK_FD2(g_sum, x, y, d);
        float dh = __enzyme_autodifff((void *)h, enzyme_active_return, (float)x);
        check_close("d sum h / dx", dh, FDF1(h_sum, x), FLOAT_RTOL, FLOAT_ATOL);
        double dc = __enzyme_autodiff((void *)c, enzyme_active_return, x);
        check_close("d sum c / dx", dc, FD1(c_sum, x), FD_RTOL, FD_ATOL);

        double o, seed = 1;
        d = __enzyme_autodiff2((void *)w, enzyme_const_return, x, y, enzyme_dup, &o, &seed);
        CHECK_FD2(w_out, x, y, d);
        /* A struct through sret memory with no seed: nothing counts, every gradient is 0. */
        d = __enzyme_autodiff2((void *)g, enzyme_const_return, x, y);
        check_close("g unseeded dx", d.d0, 0, 0, 0);
        check_close("g unseeded dy", d.d1, 0, 0, 0);
    }
    return zyg_report();
}
