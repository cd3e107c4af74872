// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t.noerrno -fno-math-errno | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// lgamma, tgamma, lgamma_r and their float and long double spellings: the derivative is
// digamma(x) (times tgamma(x)), computed by zyg's own digamma helper. Checked in reverse
// and forward mode against central differences, on both sides of 0, next to the poles,
// at large x, against known values of digamma (psi(1) = -gamma, psi(1/2) = -gamma - 2 ln 2,
// psi(n + 1) = H(n) - gamma), and against the recurrence psi(x + 1) = psi(x) + 1/x.
#define _GNU_SOURCE
#include "zyg_check.h"

long double __enzyme_autodiffl(void *, ...);
long double __enzyme_fwddiffl(void *, ...);
float __enzyme_fwddifff(void *, ...);

static double f_lgamma(double x) { return lgamma(x); }
static double f_tgamma(double x) { return tgamma(x); }
static double f_lgamma_r(double x) {
    int sign;
    double r = lgamma_r(x, &sign);
    return r * sign;
}
static float f_lgammaf(float x) { return lgammaf(x); }
static float f_tgammaf(float x) { return tgammaf(x); }
static float f_lgammaf_r(float x) {
    int sign;
    return lgammaf_r(x, &sign);
}
static long double f_lgammal(long double x) { return lgammal(x); }
static long double f_tgammal(long double x) { return tgammal(x); }

#define EULER 0.57721566490153286061

/* f's derivative at x, reverse mode against central differences (with a step relative to
 * x, which near the pole at 0 must be small) and forward mode against
 * reverse mode (a macro: a request names its function at compile time). */
#define CHECK_DOUBLE(f, x)                                                          \
    do {                                                                            \
        double x_ = (x), h_ = 1e-6 * (x_ != 0 ? fabs(x_) : 1);                     \
        double g_ = __enzyme_autodiff((void *)f, x_);                               \
        double t_ = __enzyme_fwddiff((void *)f, x_, 1.0);                           \
        double fd_ = (f(x_ + h_) - f(x_ - h_)) / (2 * h_);                          \
        char label_[96];                                                            \
        snprintf(label_, sizeof label_, #f " reverse at %g", x_);                   \
        check_close(label_, g_, fd_, 1e-6, 1e-7);                                   \
        snprintf(label_, sizeof label_, #f " forward at %g", x_);                   \
        check_close(label_, t_, g_, 1e-15, 0);                                      \
    } while (0)

int main(void) {
    double xs[] = {0.3, 1.0, 1.4616321449683622, 2.5, 7.25, 12.0, 40.5, 150.0, -0.5, -1.3, -2.7, -7.9, 1e-3, -1e-3};
    for (unsigned i = 0; i < sizeof xs / sizeof xs[0]; i++) {
        CHECK_DOUBLE(f_lgamma, xs[i]);
        CHECK_DOUBLE(f_lgamma_r, xs[i]);
        if (xs[i] < 100)
            CHECK_DOUBLE(f_tgamma, xs[i]);
    }
    /* Known values: digamma to 1e-15 relative (absolute near its root 1.4616). */
    check_close("psi(1)", __enzyme_autodiff((void *)f_lgamma, 1.0), -EULER, 1e-15, 0);
    check_close("psi(1/2)", __enzyme_autodiff((void *)f_lgamma, 0.5), -EULER - 2 * M_LN2, 1e-15, 0);
    double harmonic = 0;
    for (int n = 1; n <= 30; n++) {
        harmonic += 1.0 / n;
        check_close("psi(n+1)", __enzyme_autodiff((void *)f_lgamma, n + 1.0), harmonic - EULER, 2e-15, 0);
    }
    check_close("psi(-1/2)", __enzyme_autodiff((void *)f_lgamma, -0.5), -EULER - 2 * M_LN2 + 2, 1e-15, 1e-15);
    check_close("psi(1e6)", __enzyme_autodiff((void *)f_lgamma, 1e6), log(1e6) - 0.5e-6 - 1 / 12e12, 1e-15, 0);
    check_close("tgamma'(1)", __enzyme_autodiff((void *)f_tgamma, 1.0), -EULER, 1e-15, 0);
    check_close("tgamma'(5)", __enzyme_autodiff((void *)f_tgamma, 5.0), 24 * (25.0 / 12 - EULER), 1e-15, 0);
    /* The recurrence, at points where the helper takes every path (reflection, shifts). */
    double ys[] = {0.01, 0.7, 3.3, 9.5, 10.2, -0.2, -3.6, -12.25, 1e-8};
    for (unsigned i = 0; i < sizeof ys / sizeof ys[0]; i++) {
        double y = ys[i];
        double a = __enzyme_autodiff((void *)f_lgamma, y), b = __enzyme_autodiff((void *)f_lgamma, y + 1);
        check_close("psi(x+1) - psi(x) = 1/x", b - a, 1 / y, 4e-15 * (fabs(a) + fabs(b)) * fabs(y), 0);
    }
    /* Poles: infinite derivatives (the limits from the right at +0 and -0); lgamma_r's sign
     * output does not change the value. */
    check_close("lgamma'(+0) is -inf", isinf(__enzyme_autodiff((void *)f_lgamma, 0.0)) &&
                __enzyme_autodiff((void *)f_lgamma, 0.0) < 0, 1, 0, 0);
    check_close("lgamma'(-0) is +inf", __enzyme_autodiff((void *)f_lgamma, -0.0) == INFINITY, 1, 0, 0);
    check_close("lgamma'(-2) is infinite", isinf(__enzyme_autodiff((void *)f_lgamma, -2.0)) != 0, 1, 0, 0);
    check_close("tgamma'(-2) is NaN", isnan(__enzyme_autodiff((void *)f_tgamma, -2.0)), 1, 0, 0);
    check_close("tgamma'(200) is inf", __enzyme_autodiff((void *)f_tgamma, 200.0) == INFINITY, 1, 0, 0);
    /* float: against float differences, and against the double derivative. */
    float fs[] = {0.4f, 2.5f, 6.0f, -1.5f};
    for (unsigned i = 0; i < sizeof fs / sizeof fs[0]; i++) {
        float x = fs[i];
        double psi = __enzyme_autodiff((void *)f_lgamma, (double)x);
        check_close("lgammaf reverse", __enzyme_autodifff((void *)f_lgammaf, x), FDF1(f_lgammaf, x), FLOAT_RTOL, FLOAT_ATOL);
        check_close("lgammaf against psi", __enzyme_autodifff((void *)f_lgammaf, x), psi, 1e-6, 1e-6);
        check_close("lgammaf forward", __enzyme_fwddifff((void *)f_lgammaf, x, 1.0f), psi, 1e-6, 1e-6);
        check_close("lgammaf_r", __enzyme_autodifff((void *)f_lgammaf_r, x), psi, 1e-6, 1e-6);
        check_close("tgammaf", __enzyme_autodifff((void *)f_tgammaf, x), tgamma(x) * psi, 1e-6, 1e-6);
    }
    /* long double: digamma in x86_fp80 against known values to 1e-18. */
    check_close("lgammal'(1)", (double)(__enzyme_autodiffl((void *)f_lgammal, 1.0L) + 0.577215664901532860606512L),
                0, 0, 1e-18);
    check_close("lgammal'(1/2)", (double)(__enzyme_autodiffl((void *)f_lgammal, 0.5L) + 0.577215664901532860606512L +
                                          2 * 0.693147180559945309417232L),
                0, 0, 1e-18);
    check_close("lgammal'(-1/2)", (double)(__enzyme_fwddiffl((void *)f_lgammal, -0.5L, 1.0L) +
                                           0.577215664901532860606512L + 2 * 0.693147180559945309417232L - 2),
                0, 0, 1e-18);
    check_close("tgammal'(3)", (double)(__enzyme_autodiffl((void *)f_tgammal, 3.0L) -
                                        2 * (1.5L - 0.577215664901532860606512L)),
                0, 0, 1e-17);
    return zyg_report();
}
