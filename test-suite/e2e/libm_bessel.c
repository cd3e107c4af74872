// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Bessel functions j0, j1, jn, y0, y1, yn and their float spellings: reverse mode against
// central differences and the recurrences (J0' = -J1, Jn' = (J(n-1) - J(n+1))/2), forward
// mode against reverse mode, at small and large x, x = 0 (J1'(0) = 1/2, Y's derivative
// +inf), and n = 0 and negative n in jn/yn.
#define _GNU_SOURCE
#include "zyg_check.h"

float __enzyme_fwddifff(void *, ...);

static double f_j0(double x) { return j0(x); }
static double f_j1(double x) { return j1(x); }
static double f_y0(double x) { return y0(x); }
static double f_y1(double x) { return y1(x); }
static int order;
static double f_jn(double x) { return jn(order, x); }
static double f_yn(double x) { return yn(order, x); }
static double f_jn3(double x) { return jn(3, x); }
long double __enzyme_autodiffl(void *, ...);
static long double l_bessel(long double x) { return j0l(x) + y1l(x) + jnl(2, x); }
static float g_j0f(float x) { return j0f(x); }
static float g_j1f(float x) { return j1f(x); }
static float g_y1f(float x) { return y1f(x); }
static float g_jnf(float x) { return jnf(2, x); }
static float g_ynf(float x) { return ynf(2, x); }

#define CHECK(f, x)                                                                       \
    do {                                                                                  \
        double x_ = (x), h_ = 1e-6 * (fabs(x_) > 1 ? fabs(x_) : 1);                       \
        double g_ = __enzyme_autodiff((void *)f, x_);                                     \
        double t_ = __enzyme_fwddiff((void *)f, x_, 1.0);                                 \
        char label_[96];                                                                  \
        snprintf(label_, sizeof label_, #f " (n = %d) at %g", order, x_);                 \
        check_close(label_, g_, (f(x_ + h_) - f(x_ - h_)) / (2 * h_), FD_RTOL, FD_ATOL);  \
        snprintf(label_, sizeof label_, #f " (n = %d) forward at %g", order, x_);         \
        check_close(label_, t_, g_, EXACT_RTOL, EXACT_ATOL);                              \
    } while (0)

int main(void) {
    double xs[] = {0.3, 1.7, 4.2, 9.5, 35.0, 250.5};
    for (int i = 0; i < 6; i++) {
        double x = xs[i];
        CHECK(f_j0, x);
        CHECK(f_j1, x);
        CHECK(f_y0, x);
        CHECK(f_y1, x);
        CHECK(f_j0, -x);
        CHECK(f_j1, -x);
        CHECK(f_jn3, x);
        for (order = -3; order <= 4; order++) {
            CHECK(f_jn, x);
            if (x > 1)
                CHECK(f_yn, x);
        }
        /* The recurrences, exactly as the rules state them. */
        check_close("J0' = -J1", __enzyme_autodiff((void *)f_j0, x), -j1(x), 1e-15, 0);
        check_close("Y0' = -Y1", __enzyme_autodiff((void *)f_y0, x), -y1(x), 1e-15, 0);
        order = 0;
        check_close("jn(0)' = -J1", __enzyme_autodiff((void *)f_jn, x), -j1(x), 1e-15, 1e-300);
    }
    /* x = 0: J1'(0) = 1/2, Jn'(0) = 1/2 for n = 1 and 0 for n >= 2; Y's derivative +inf. */
    check_close("J1'(0)", __enzyme_autodiff((void *)f_j1, 0.0), 0.5, 0, 0);
    check_close("J0'(0)", __enzyme_autodiff((void *)f_j0, 0.0), 0, 0, 0);
    check_close("J3'(0)", __enzyme_fwddiff((void *)f_jn3, 0.0, 1.0), 0, 0, 0);
    order = 1;
    check_close("jn(1)'(0)", __enzyme_autodiff((void *)f_jn, 0.0), 0.5, 0, 0);
    check_close("Y0'(0) = +inf", __enzyme_autodiff((void *)f_y0, 0.0) == INFINITY, 1, 0, 0);
    check_close("Y1'(0) = +inf", __enzyme_fwddiff((void *)f_y1, 0.0, 1.0) == INFINITY, 1, 0, 0);
    order = 2;
    check_close("Y2'(0) = +inf", __enzyme_autodiff((void *)f_yn, 0.0) == INFINITY, 1, 0, 0);
    order = -1;
    check_close("Y(-1)'(0) = -inf", __enzyme_autodiff((void *)f_yn, 0.0) == -INFINITY, 1, 0, 0);
    /* float spellings against float differences and the double derivatives. */
    float fs[] = {0.6f, 2.3f, 7.1f};
    for (int i = 0; i < 3; i++) {
        float x = fs[i];
        check_close("j0f", __enzyme_autodifff((void *)g_j0f, x), FDF1(g_j0f, x), FLOAT_RTOL, FLOAT_ATOL);
        check_close("j1f", __enzyme_fwddifff((void *)g_j1f, x, 1.0f), j0(x) - j1(x) / x, 1e-5, 1e-6);
        check_close("y1f", __enzyme_autodifff((void *)g_y1f, x), y0(x) - y1(x) / x, 1e-5, 1e-6);
        check_close("jnf", __enzyme_autodifff((void *)g_jnf, x), (j1(x) - jn(3, x)) / 2, 1e-5, 1e-6);
        check_close("ynf", __enzyme_fwddifff((void *)g_ynf, x, 1.0f), (y1(x) - yn(3, x)) / 2, 1e-5, 1e-6);
    }
    /* long double spellings: against the recurrences in double. */
    for (int i = 0; i < 3; i++) {
        double x = xs[i + 1];
        double want = -j1(x) + (y0(x) - y1(x) / x) + (j1(x) - jn(3, x)) / 2;
        check_close("long double", (double)__enzyme_autodiffl((void *)l_bessel, (long double)x), want, 1e-13, 1e-15);
    }
    return zyg_report();
}
