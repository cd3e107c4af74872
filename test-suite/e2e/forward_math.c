// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Forward mode through the C library's math functions: each function's tangent (from the
// same rule table as its adjoint) against central differences, and against the reverse
// mode derivative of the same function, at several points inside each domain.
#include "zyg_check.h"

#define ONE(name, expr) \
    static double name(double x) { return expr; }
ONE(f_sin, sin(x)) ONE(f_cos, cos(x)) ONE(f_tan, tan(x)) ONE(f_exp, exp(x)) ONE(f_exp2, exp2(x))
ONE(f_expm1, expm1(x)) ONE(f_log, log(x)) ONE(f_log2, log2(x)) ONE(f_log10, log10(x))
ONE(f_log1p, log1p(x)) ONE(f_sqrt, sqrt(x)) ONE(f_cbrt, cbrt(x)) ONE(f_sinh, sinh(x))
ONE(f_cosh, cosh(x)) ONE(f_tanh, tanh(x)) ONE(f_asin, asin(x / 4)) ONE(f_acos, acos(x / 4))
ONE(f_atan, atan(x))
ONE(f_erf, erf(x)) ONE(f_erfc, erfc(x)) ONE(f_pow, pow(x, 2.5)) ONE(f_powx, pow(1.7, x))
ONE(f_atan2, atan2(x, 1.3)) ONE(f_hypot, hypot(x, 0.8)) ONE(f_fabs, fabs(x) * x)
ONE(f_fmax, fmax(x, 0.7) * x) ONE(f_fmin, fmin(x * x, 1.1)) ONE(f_fma, fma(x, x, x))
ONE(f_copysign, copysign(x * x, -1.0))
ONE(f_fmod, fmod(x * 3, 1.1)) ONE(f_floor, floor(x) + x * x)

/* Every function, by name. Each is checked by a function of its own, so that the optimiser
 * cannot merge the requests into one call through a function pointer. */
#define FUNCTIONS(X) \
    X(sin) X(cos) X(tan) X(exp) X(exp2) X(expm1) X(log) X(log2) X(log10) X(log1p) X(sqrt) \
    X(cbrt) X(sinh) X(cosh) X(tanh) X(asin) X(acos) X(atan) X(erf) X(erfc) X(pow) X(powx) \
    X(atan2) X(hypot) X(fabs) X(fmax) X(fmin) X(fma) X(copysign) X(fmod) \
    X(floor)

#define CHECK(n)                                                                              \
    static void check_##n(void) {                                                             \
        double xs[] = {0.35, 1.3, 2.45};                                                      \
        for (int i = 0; i < 3; i++) {                                                          \
            double x = xs[i], dx = 0.75, h = 1e-6;                                             \
            double t = __enzyme_fwddiff((void *)f_##n, x, dx);                                 \
            double want = (f_##n(x + h * dx) - f_##n(x - h * dx)) / (2 * h);                   \
            check_close(#n " against differences", t, want, FD_RTOL, FD_ATOL);                \
            check_close(#n " against reverse mode", t, dx * __enzyme_autodiff((void *)f_##n, x), \
                        EXACT_RTOL, EXACT_ATOL);                                               \
        }                                                                                     \
    }
FUNCTIONS(CHECK)

#define CALL(n) check_##n();
int main(void) {
    FUNCTIONS(CALL)
    return zyg_report();
}
