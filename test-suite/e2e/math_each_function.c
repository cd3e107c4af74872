// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// With -fno-math-errno clang spells most of these as LLVM intrinsics (llvm.sin.f64,
// llvm.pow.f32, llvm.atan2.f64, ...) and fmod as the frem instruction.
// RUN: %grad-run -O0 %s %t.noerrno -fno-math-errno | FileCheck %s
// RUN: %grad-run -O2 %s %t.noerrno -fno-math-errno | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Every math function with a rule, one request each, in its double and its float spelling
// (sin and sinf, ...), at three points including a negative one. The double gradient is
// checked against central differences; the float gradient against central differences of
// the double function at the same (float) point, so both spellings must agree with the
// same derivative. Operands of two- and three-argument functions are tested one at a time.
// The rounding functions have derivative zero, checked exactly; kinks are avoided.
#include "zyg_check.h"

#define PAIR(name, dexpr, fexpr)                                                               \
    double d_##name(double x) { return dexpr; }                                                \
    float f_##name(float x) { return fexpr; }

PAIR(sin, sin(x), sinf(x))
PAIR(cos, cos(x), cosf(x))
PAIR(tan, tan(x), tanf(x))
PAIR(exp, exp(x), expf(x))
PAIR(exp2, exp2(x), exp2f(x))
PAIR(expm1, expm1(x), expm1f(x))
PAIR(log, log(x + 2.0), logf(x + 2.0f))
PAIR(log2, log2(x + 2.0), log2f(x + 2.0f))
PAIR(log10, log10(x + 2.0), log10f(x + 2.0f))
PAIR(log1p, log1p(x), log1pf(x))
PAIR(pow_base, pow(x + 2.0, 1.75), powf(x + 2.0f, 1.75f))
PAIR(pow_exponent, pow(1.5, x), powf(1.5f, x))
PAIR(pow_both, pow(x + 2.0, x), powf(x + 2.0f, x))
PAIR(sqrt, sqrt(x + 2.0), sqrtf(x + 2.0f))
PAIR(cbrt, cbrt(x), cbrtf(x))
PAIR(fabs, fabs(x), fabsf(x))
PAIR(fmin_first, fmin(x, 0.25), fminf(x, 0.25f))
PAIR(fmin_second, fmin(0.25, x), fminf(0.25f, x))
PAIR(fmax_first, fmax(x, 0.25), fmaxf(x, 0.25f))
PAIR(fmax_second, fmax(0.25, x), fmaxf(0.25f, x))
PAIR(tanh, tanh(x), tanhf(x))
PAIR(sinh, sinh(x), sinhf(x))
PAIR(cosh, cosh(x), coshf(x))
PAIR(asin, asin(x), asinf(x))
PAIR(acos, acos(x), acosf(x))
PAIR(atan, atan(x), atanf(x))
PAIR(atan2_y, atan2(x, 0.75), atan2f(x, 0.75f))
PAIR(atan2_x, atan2(0.5, x), atan2f(0.5f, x))
PAIR(erf, erf(x), erff(x))
PAIR(erfc, erfc(x), erfcf(x))
PAIR(hypot_first, hypot(x, 0.75), hypotf(x, 0.75f))
PAIR(hypot_second, hypot(-1.5, x), hypotf(-1.5f, x))
PAIR(fma_first, fma(x, 1.5, 0.25), fmaf(x, 1.5f, 0.25f))
PAIR(fma_second, fma(-0.75, x, 2.0), fmaf(-0.75f, x, 2.0f))
PAIR(fma_third, fma(1.25, -0.5, x), fmaf(1.25f, -0.5f, x))
PAIR(fma_square, fma(x, x, x), fmaf(x, x, x))
PAIR(copysign_magnitude, copysign(x, -1.0), copysignf(x, -1.0f))
PAIR(copysign_sign, copysign(2.0, x) * x, copysignf(2.0f, x) * x)
PAIR(fmod_first, fmod(x, 0.75), fmodf(x, 0.75f))
PAIR(fmod_second, fmod(2.0, x), fmodf(2.0f, x))
PAIR(floor, floor(x * 3.0), floorf(x * 3.0f))
PAIR(ceil, ceil(x * 3.0), ceilf(x * 3.0f))
PAIR(trunc, trunc(x * 3.0), truncf(x * 3.0f))
PAIR(round, round(x * 3.0), roundf(x * 3.0f))
PAIR(rint, rint(x * 3.0), rintf(x * 3.0f))

/* Both spellings against central differences of the double function. */
#define CHECK_PAIR(name, x)                                                                    \
    do {                                                                                       \
        float xf = (float)(x);                                                                 \
        check_close("d_" #name, __enzyme_autodiff((void *)d_##name, (double)(x)), FD1(d_##name, (double)(x)), \
                    FD_RTOL, FD_ATOL);                                                         \
        check_close("f_" #name, __enzyme_autodifff((void *)f_##name, xf), FD1(d_##name, (double)xf), 2e-5, \
                    2e-6);                                                                     \
    } while (0)

/* Derivative zero, exactly. */
#define CHECK_ZERO(name, x)                                                                    \
    do {                                                                                       \
        check_close("d_" #name, __enzyme_autodiff((void *)d_##name, (double)(x)), 0.0, 0.0, 0.0); \
        check_close("f_" #name, __enzyme_autodifff((void *)f_##name, (float)(x)), 0.0, 0.0, 0.0); \
    } while (0)

int main(void) {
    /* Away from every kink: fabs at 0, fmin/fmax at 0.25, fmod where x / 0.75 or 2 / x is an
     * integer, copysign's sign at 0, rounding where 3x is an integer or a half. */
    double xs[] = {-0.7, 0.35, 0.9};
    for (int i = 0; i < 3; i++) {
        double x = xs[i];
        printf("x = %g\n", x);
        CHECK_PAIR(sin, x);
        CHECK_PAIR(cos, x);
        CHECK_PAIR(tan, x);
        CHECK_PAIR(exp, x);
        CHECK_PAIR(exp2, x);
        CHECK_PAIR(expm1, x);
        CHECK_PAIR(log, x);
        CHECK_PAIR(log2, x);
        CHECK_PAIR(log10, x);
        CHECK_PAIR(log1p, x);
        CHECK_PAIR(pow_base, x);
        CHECK_PAIR(pow_exponent, x);
        CHECK_PAIR(pow_both, x);
        CHECK_PAIR(sqrt, x);
        CHECK_PAIR(cbrt, x);
        CHECK_PAIR(fabs, x);
        CHECK_PAIR(fmin_first, x);
        CHECK_PAIR(fmin_second, x);
        CHECK_PAIR(fmax_first, x);
        CHECK_PAIR(fmax_second, x);
        CHECK_PAIR(tanh, x);
        CHECK_PAIR(sinh, x);
        CHECK_PAIR(cosh, x);
        CHECK_PAIR(asin, x);
        CHECK_PAIR(acos, x);
        CHECK_PAIR(atan, x);
        CHECK_PAIR(atan2_y, x);
        CHECK_PAIR(atan2_x, x);
        CHECK_PAIR(erf, x);
        CHECK_PAIR(erfc, x);
        CHECK_PAIR(hypot_first, x);
        CHECK_PAIR(hypot_second, x);
        CHECK_PAIR(fma_first, x);
        CHECK_PAIR(fma_second, x);
        CHECK_PAIR(fma_third, x);
        CHECK_PAIR(fma_square, x);
        CHECK_PAIR(copysign_magnitude, x);
        CHECK_PAIR(copysign_sign, x);
        CHECK_PAIR(fmod_first, x);
        CHECK_PAIR(fmod_second, x);
        CHECK_ZERO(floor, x);
        CHECK_ZERO(ceil, x);
        CHECK_ZERO(trunc, x);
        CHECK_ZERO(round, x);
        CHECK_ZERO(rint, x);
    }
    return zyg_report();
}
