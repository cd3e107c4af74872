// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t.fast -ffast-math | FileCheck %s
// RUN: %grad-run -O2 %s %t.nobuiltin -fno-builtin | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// asinh, acosh, atanh, exp10, expm1, log1p, ldexp, scalbn, scalbln, frexp, modf, fdim,
// remainder, in double, float and long double: reverse mode against central differences or
// the closed form, forward mode against reverse mode, and the edge points the rules state
// (acosh at 1 and atanh at ±1: +inf; fdim's tie: half the adjoint each; remainder and frexp
// at their jumps: the slope of the piece the primal takes; modf at integers: 1, and its
// integer part, written through the pointer, carries no derivative). clang writes modf as
// `llvm.modf.*`; with -fno-builtin it stays a call to modf, which zyg differentiates through
// its own body of it (rules/library.rs).
#define _GNU_SOURCE
#include "zyg_check.h"
#include <string.h>

long double __enzyme_autodiffl(void *, ...);
long double __enzyme_fwddiffl(void *, ...);
float __enzyme_fwddifff(void *, ...);

#define ONE(name, expr) \
    static double name(double x) { return expr; }
ONE(f_asinh, asinh(x)) ONE(f_acosh, acosh(x)) ONE(f_atanh, atanh(x)) ONE(f_exp10, exp10(x))
ONE(f_expm1, expm1(x)) ONE(f_log1p, log1p(x)) ONE(f_ldexp, ldexp(x, 5) + ldexp(x, -3))
ONE(f_scalbn, scalbn(x * x, -2)) ONE(f_scalbln, scalbln(x, 40L))
ONE(f_fdim, fdim(x, 0.5) + fdim(1.25, x)) ONE(f_remainder, remainder(x * 3, 1.1))
ONE(f_remainder_y, remainder(5.3, x))
static double f_frexp(double x) {
    int e;
    double m = frexp(x, &e);
    return m * e;
}
/* modf's integer part, through memory, into the result: it takes no derivative. */
static double f_modf(double x) {
    double ip;
    double frac = modf(x, &ip);
    return frac * 2 + ip * 3;
}
/* The integer part written into memory another result reads, through a pointer argument. */
static double f_modf_out(double x, double *ip) { return modf(x * x, ip); }
static double f_modf_both(double x, double *ip, double *frac) {
    *frac = modf(x, ip);
    return *frac;
}
static double f_fdim2(double x, double y) { return fdim(x, y); }
static double f_remainder2(double x, double y) { return remainder(x, y); }

#define CHECK(f, x)                                                                       \
    do {                                                                                  \
        double x_ = (x), h_ = 1e-6 * (fabs(x_) > 1 ? fabs(x_) : 1);                       \
        double g_ = __enzyme_autodiff((void *)f, x_);                                     \
        double t_ = __enzyme_fwddiff((void *)f, x_, 1.0);                                 \
        char label_[96];                                                                  \
        snprintf(label_, sizeof label_, #f " at %g", x_);                                 \
        check_close(label_, g_, (f(x_ + h_) - f(x_ - h_)) / (2 * h_), FD_RTOL, FD_ATOL);  \
        snprintf(label_, sizeof label_, #f " forward at %g", x_);                         \
        check_close(label_, t_, g_, EXACT_RTOL, EXACT_ATOL);                              \
    } while (0)

/* An exact expected derivative (infinities equal), reverse and forward. */
static void check_exact(const char *label, double got, double want) {
    check_close(label, got == want ? 1 : got, got == want ? 1 : want, 1e-15, 0);
}
#define EXACT(f, x, want)                                                                 \
    do {                                                                                  \
        char label_[96];                                                                  \
        snprintf(label_, sizeof label_, #f " exactly at %g", (double)(x));                \
        check_exact(label_, __enzyme_autodiff((void *)f, (double)(x)), want);             \
        check_exact(label_, __enzyme_fwddiff((void *)f, (double)(x), 1.0), want);         \
    } while (0)

static float g_asinhf(float x) { return asinhf(x); }
static float g_acoshf(float x) { return acoshf(x); }
static float g_atanhf(float x) { return atanhf(x); }
static float g_exp10f(float x) { return exp10f(x); }
static float g_expm1f(float x) { return expm1f(x); }
static float g_log1pf(float x) { return log1pf(x); }
static float g_ldexpf(float x) { return ldexpf(x, 3); }
static float g_frexpf(float x) {
    int e;
    return frexpf(x, &e);
}
static float g_modff(float x) {
    float ip;
    return modff(x, &ip) + ip;
}
static float g_fdimf(float x) { return fdimf(x, 1.0f); }
static float g_remainderf(float x) { return remainderf(x, 0.75f); }
static long double l_all(long double x) {
    int e;
    long double ip;
    return asinhl(x) + acoshl(x + 1) + atanhl(x / 4) + exp10l(x) + ldexpl(x, 7) + frexpl(x, &e) +
           modfl(x * 3, &ip) + fdiml(x, 0.25L) + remainderl(x, 0.3L);
}

int main(void) {
    double xs[] = {0.35, 1.3, 2.45, -0.7, -3.2};
    for (int i = 0; i < 5; i++) {
        double x = xs[i];
        CHECK(f_asinh, x);
        CHECK(f_acosh, fabs(x) + 1.05);
        CHECK(f_atanh, x / 4);
        CHECK(f_exp10, x);
        CHECK(f_expm1, x);
        CHECK(f_log1p, fabs(x));
        CHECK(f_ldexp, x);
        CHECK(f_scalbn, x);
        CHECK(f_scalbln, x);
        CHECK(f_frexp, x);
        CHECK(f_modf, x);
        CHECK(f_fdim, x);
        CHECK(f_remainder, x);
        CHECK(f_remainder_y, fabs(x) + 0.4);
    }
    /* Closed forms and edges. */
    EXACT(f_asinh, 0.0, 1.0);
    EXACT(f_asinh, 1e200, 1e-200);
    EXACT(f_acosh, 1e300, 1e-300);
#ifndef __FAST_MATH__ /* -ffast-math: no infinities to compare */
    EXACT(f_acosh, 1.0, INFINITY);
    EXACT(f_atanh, 1.0, INFINITY);
    EXACT(f_atanh, -1.0, INFINITY);
#endif
    EXACT(f_atanh, 0.5, 4.0 / 3.0);
    EXACT(f_exp10, 2.0, 100 * M_LN10);
    EXACT(f_ldexp, 3.0, 32.125);
    EXACT(f_scalbln, -1.0, 1099511627776.0);
    EXACT(f_frexp, 8.0, 4.0 / 16);   /* m = 0.5, e = 4: the slope of the piece from 8 up */
    EXACT(f_frexp, 0.75, 0.0);       /* e = 0 */
    EXACT(f_frexp, 3.0, 0.5);
    EXACT(f_modf, 2.0, 2.0);         /* the integer part's jump: the fraction's slope 1 */
    EXACT(f_modf, -3.0, 2.0);
    EXACT(f_modf, -0.25, 2.0);
    EXACT(f_fdim, 0.5, -0.5);        /* tie of the first fdim: 0.5, and the second's -1 */
    EXACT(f_fdim, 1.25, 0.5);        /* tie of the second: 1 - 0.5 */
    EXACT(f_remainder, 0.55, 3.0);   /* x*3 = 1.65 = 1.5 * 1.1: a jump, slope 3 on both sides */
    EXACT(f_remainder_y, 2.0, -3.0); /* 5.3 / 2 = 2.65: n = 3 */
    /* Two-argument gradients at ties and jumps. */
    zyg_grad2 g = __enzyme_autodiff2((void *)f_fdim2, 2.0, 2.0);
    check_close("fdim tie dx", g.d0, 0.5, 0, 0);
    check_close("fdim tie dy", g.d1, -0.5, 0, 0);
    g = __enzyme_autodiff2((void *)f_fdim2, 1.0, 2.0);
    check_close("fdim below dx", g.d0, 0, 0, 0);
    check_close("fdim below dy", g.d1, 0, 0, 0);
    g = __enzyme_autodiff2((void *)f_remainder2, 5.0, 2.0); /* 2.5: n = 2 (even) */
    check_close("remainder(5, 2) dx", g.d0, 1, 0, 0);
    check_close("remainder(5, 2) dy", g.d1, -2, 0, 0);
    g = __enzyme_autodiff2((void *)f_remainder2, 7.0, 2.0); /* 3.5: n = 4 */
    check_close("remainder(7, 2) dy", g.d1, -4, 0, 0);
    g = __enzyme_autodiff2((void *)f_remainder2, 6.0, 2.0); /* exact: n = 3 */
    check_close("remainder(6, 2) dy", g.d1, -3, 0, 0);
#ifndef __FAST_MATH__
    g = __enzyme_autodiff2((void *)f_remainder2, 5.0, INFINITY);
    check_close("remainder(5, inf) dx", g.d0, 1, 0, 0);
    check_close("remainder(5, inf) dy", g.d1, 0, 0, 0);
#endif
    /* modf's integer part in memory the caller reads: its adjoint is taken and dropped in
     * reverse mode (the seed 1 in *ip's shadow does not reach x), its tangent is 0. */
    double ip = 0, dip = 1.0;
    double dx = __enzyme_autodiff((void *)f_modf_out, 1.5, enzyme_dup, &ip, &dip);
    check_close("modf out: dx", dx, 3.0, 0, 0);
    check_close("modf out: ip", ip, 2.0, 0, 0);
    check_close("modf out: ip's adjoint consumed", dip, 0, 0, 0);
    ip = 0, dip = 5.0;
    double t = __enzyme_fwddiff((void *)f_modf_out, 1.5, 1.0, enzyme_dup, &ip, &dip);
    check_close("modf out: tangent", t, 3.0, 0, 0);
    check_close("modf out: ip's tangent", dip, 0, 0, 0);
    /* modf's values in the generated code are libm's, bit for bit, signs of zero included:
     * the primal of forward mode writes both parts to memory. */
#ifndef __FAST_MATH__
    double vals[] = {2.75, -2.75, 3.0, -3.0, 0.0, -0.0, INFINITY, -INFINITY, 1e300, -5e-324, 0.1};
    for (int i = 0; i < 11; i++) {
        double want_ip, want_frac = modf(vals[i], &want_ip);
        double frac = 0, dfrac = 0, part = 0, dpart = 0;
        __enzyme_fwddiff((void *)f_modf_both, vals[i], 1.0, enzyme_dup, &part, &dpart, enzyme_dup, &frac, &dfrac);
        check_close("modf fraction bits", memcmp(&frac, &want_frac, sizeof frac) == 0, 1, 0, 0);
        check_close("modf integer part bits", memcmp(&part, &want_ip, sizeof part) == 0, 1, 0, 0);
        if (isfinite(vals[i])) {
            check_close("modf fraction tangent", dfrac, 1, 0, 0);
            check_close("modf integer part tangent", dpart, 0, 0, 0);
        }
    }
#endif
    /* float spellings: against float differences. */
    float fxs[] = {0.4f, 1.7f, -0.6f};
    for (int i = 0; i < 3; i++) {
        float x = fxs[i];
        check_close("asinhf", __enzyme_autodifff((void *)g_asinhf, x), FDF1(g_asinhf, x), FLOAT_RTOL, FLOAT_ATOL);
        check_close("acoshf", __enzyme_autodifff((void *)g_acoshf, fabsf(x) + 1.5f), FDF1(g_acoshf, fabsf(x) + 1.5f),
                    FLOAT_RTOL, FLOAT_ATOL);
        check_close("atanhf", __enzyme_autodifff((void *)g_atanhf, x / 2), FDF1(g_atanhf, x / 2), FLOAT_RTOL, FLOAT_ATOL);
        check_close("exp10f", __enzyme_autodifff((void *)g_exp10f, x), FDF1(g_exp10f, x), FLOAT_RTOL, FLOAT_ATOL);
        check_close("expm1f", __enzyme_fwddifff((void *)g_expm1f, x, 1.0f), expf(x), 1e-6, 0);
        check_close("log1pf", __enzyme_autodifff((void *)g_log1pf, fabsf(x)), 1 / (1 + fabsf(x)), 1e-6, 0);
        check_close("ldexpf", __enzyme_autodifff((void *)g_ldexpf, x), 8, 0, 0);
        check_close("frexpf", __enzyme_fwddifff((void *)g_frexpf, x, 1.0f), FDF1(g_frexpf, x), FLOAT_RTOL, FLOAT_ATOL);
        check_close("modff", __enzyme_autodifff((void *)g_modff, x), 1, 0, 0);
        check_close("fdimf", __enzyme_autodifff((void *)g_fdimf, x), x > 1 ? 1 : 0, 0, 0);
        check_close("remainderf", __enzyme_fwddifff((void *)g_remainderf, x, 1.0f), 1, 0, 0);
    }
    /* long double: the sum of the l spellings, against the closed form. */
    long double lx = 0.6L;
    long double want = 1 / sqrtl(lx * lx + 1) + 1 / sqrtl((lx + 1) * (lx + 1) - 1) + 0.25L / (1 - lx * lx / 16) +
                       exp10l(lx) * 2.302585092994045684017991L + 128 + 1 + 3 + 1 + 1;
    check_close("long double reverse", (double)__enzyme_autodiffl((void *)l_all, lx), (double)want, 1e-15, 0);
    check_close("long double forward", (double)__enzyme_fwddiffl((void *)l_all, lx, 1.0L), (double)want, 1e-15, 0);
    return zyg_report();
}
