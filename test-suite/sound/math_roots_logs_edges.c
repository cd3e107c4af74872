// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// RUN: %grad-run -O3 %s %t.native -march=native | FileCheck %s
// RUN: %grad-run -O3 %s %t.vec -march=native -fno-math-errno | FileCheck %s
// RUN: grep -q "@llvm.sqrt.v" %t.vec.O3.ll
// RUN: grep -q "@llvm.exp.v" %t.vec.O3.ll
// RUN: grep -q "@llvm.sinh.v" %t.vec.O3.ll
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Roots, logarithms, inverse sines and overflowing exponentials at their edge points,
// scalar and (at -O3 -march=native -fno-math-errno) vectorised:
// - sqrt, cbrt and pow(x, 0.5) at ±0 give 0 (Enzyme's rule for sqrt), so a norm
//   sqrt(x² + y²) and hypot at the origin give 0, not 0 * inf = NaN;
// - log, log2, log10 at ±0 and log1p at -1 give +inf, asin at ±1 +inf, acos at ±1 -inf
//   (the derivative is infinite there, and said so);
// - where the result's adjoint is 0 (an overflowing exp, sinh or expm1 clamped by fmin, a
//   log at 0 clamped by fmax), the derivative is 0, not 0 * inf = NaN;
// - tanh and erf for large |x| and at ±inf give 0; atan at inf gives 0.
#include "zyg_check.h"
#include "zyg_edge.h"

double d_sqrt(double x) { return sqrt(x); }
double d_cbrt(double x) { return cbrt(x); }
double d_pow_half(double x) { return pow(x, 0.5); }
double d_norm(double x, double y) { return sqrt(x * x + y * y); }
double d_hypot(double x, double y) { return hypot(x, y); }
double d_log(double x) { return log(x); }
double d_log2(double x) { return log2(x); }
double d_log10(double x) { return log10(x); }
double d_log1p(double x) { return log1p(x); }
double d_asin(double x) { return asin(x); }
double d_acos(double x) { return acos(x); }
double d_exp(double x) { return exp(x); }
double d_exp_clamped(double x) { return fmin(exp(x), 1e300); }
double d_expm1_clamped(double x) { return fmin(expm1(x), 4.0); }
double d_sinh_clamped(double x) { return fmin(sinh(x), 5.0); }
double d_cosh_clamped(double x) { return fmin(cosh(x), 5.0); }
double d_log_clamped(double x) { return fmax(log(x), -5.0); }
double d_tanh(double x) { return tanh(x); }
double d_erf(double x) { return erf(x); }
double d_erfc(double x) { return erfc(x); }
double d_atan(double x) { return atan(x); }

float f_sqrt(float x) { return sqrtf(x); }
float f_log(float x) { return logf(x); }
float f_asin(float x) { return asinf(x); }
float f_hypot(float x, float y) { return hypotf(x, y); }
long double l_sqrt(long double x) { return sqrtl(x); }
long double l_log(long double x) { return logl(x); }
long double __enzyme_autodiffl(void *, ...);

/* Elementwise maps, which vectorise; the request seeds y's shadow with 1. */
#define MAP(name, expr)                                                                        \
    void name##_map(double *y, const double *x, int n) {                                       \
        for (int i = 0; i < n; i++) {                                                          \
            double t = x[i];                                                                   \
            y[i] = expr;                                                                       \
        }                                                                                      \
    }
MAP(sqrt, sqrt(t))
MAP(log, log(t))
MAP(asin, asin(t))
MAP(exp_clamped, fmin(exp(t), 1e300))
MAP(sinh_clamped, fmin(sinh(t), 5.0))
MAP(cosh_clamped, fmin(cosh(t), 5.0))
MAP(tanh, tanh(t))

void norm2_map(double *y, const double *a, const double *b, int n) {
    for (int i = 0; i < n; i++)
        y[i] = sqrt(a[i] * a[i] + b[i] * b[i]);
}

enum { N = 8 };
/* A macro, since a gradient request must name its function. */
#define CHECK_MAP(name, x, want)                                                              \
    do {                                                                                       \
        double y[N], dy[N], dx[N] = {0};                                                       \
        for (int i = 0; i < N; i++)                                                            \
            dy[i] = 1.0;                                                                       \
        __enzyme_autodiff((void *)name##_map, enzyme_dup, y, dy, enzyme_dup, x, dx, enzyme_const, N); \
        for (int i = 0; i < N; i++) {                                                          \
            char label[64];                                                                    \
            snprintf(label, sizeof label, #name "_map at %g", x[i]);                           \
            check_edge(label, dx[i], want[i]);                                                 \
        }                                                                                      \
    } while (0)

static void check_scalars(void) {
    check_edge("sqrt at 0", __enzyme_autodiff((void *)d_sqrt, 0.0), 0.0);
    check_edge("sqrt at -0", __enzyme_autodiff((void *)d_sqrt, -0.0), 0.0);
    check_edge("sqrt at inf", __enzyme_autodiff((void *)d_sqrt, INFINITY), 0.0);
    check_edge("sqrt at 4", __enzyme_autodiff((void *)d_sqrt, 4.0), 0.25);
    check_edge("cbrt at 0", __enzyme_autodiff((void *)d_cbrt, 0.0), 0.0);
    check_edge("cbrt at -0", __enzyme_autodiff((void *)d_cbrt, -0.0), 0.0);
    check_close("cbrt at -8", __enzyme_autodiff((void *)d_cbrt, -8.0), 1.0 / 12.0, EXACT_RTOL, EXACT_ATOL);
    check_edge("pow(x, 0.5) at 0", __enzyme_autodiff((void *)d_pow_half, 0.0), 0.0);
    check_close("pow(x, 0.5) at 4", __enzyme_autodiff((void *)d_pow_half, 4.0), 0.25, EXACT_RTOL, EXACT_ATOL);
    zyg_grad2 g = __enzyme_autodiff2((void *)d_norm, 0.0, 0.0);
    check_edge("norm at 0 d/dx", g.d0, 0.0);
    check_edge("norm at 0 d/dy", g.d1, 0.0);
    g = __enzyme_autodiff2((void *)d_norm, 3.0, -4.0);
    check_edge("norm at (3,-4) d/dx", g.d0, 0.6);
    check_edge("norm at (3,-4) d/dy", g.d1, -0.8);
    g = __enzyme_autodiff2((void *)d_hypot, 0.0, -0.0);
    check_edge("hypot at 0 d/dx", g.d0, 0.0);
    check_edge("hypot at 0 d/dy", g.d1, 0.0);
    g = __enzyme_autodiff2((void *)d_hypot, -INFINITY, 2.0);
    check_edge("hypot at (-inf, 2) d/dx", g.d0, -1.0);
    check_edge("hypot at (-inf, 2) d/dy", g.d1, 0.0);
    g = __enzyme_autodiff2((void *)d_hypot, 1e300, 1e300);
    check_close("hypot at (1e300, 1e300) d/dx", g.d0, sqrt(0.5), EXACT_RTOL, 0);
    check_close("hypot at (1e-300, 3e-300) d/dy", __enzyme_autodiff2((void *)d_hypot, 1e-300, 3e-300).d1,
                3 / sqrt(10.0), 1e-15, 0);

    check_edge("log at 0", __enzyme_autodiff((void *)d_log, 0.0), INFINITY);
    check_edge("log at -0", __enzyme_autodiff((void *)d_log, -0.0), INFINITY);
    check_edge("log at inf", __enzyme_autodiff((void *)d_log, INFINITY), 0.0);
    check_edge("log2 at -0", __enzyme_autodiff((void *)d_log2, -0.0), INFINITY);
    check_edge("log10 at 0", __enzyme_autodiff((void *)d_log10, 0.0), INFINITY);
    check_edge("log1p at -1", __enzyme_autodiff((void *)d_log1p, -1.0), INFINITY);
    check_edge("asin at 1", __enzyme_autodiff((void *)d_asin, 1.0), INFINITY);
    check_edge("asin at -1", __enzyme_autodiff((void *)d_asin, -1.0), INFINITY);
    check_edge("acos at 1", __enzyme_autodiff((void *)d_acos, 1.0), -INFINITY);
    check_edge("acos at -1", __enzyme_autodiff((void *)d_acos, -1.0), -INFINITY);
    check_close("asin near 1", __enzyme_autodiff((void *)d_asin, 0.999), FD1(d_asin, 0.999), 1e-5, 0);
    check_edge("exp at 1000", __enzyme_autodiff((void *)d_exp, 1000.0), INFINITY);
    check_edge("exp at -inf", __enzyme_autodiff((void *)d_exp, -INFINITY), 0.0);

    check_edge("fmin(exp(x), 1e300) at 1000", __enzyme_autodiff((void *)d_exp_clamped, 1000.0), 0.0);
    check_close("fmin(exp(x), 1e300) at 1", __enzyme_autodiff((void *)d_exp_clamped, 1.0), exp(1.0), EXACT_RTOL, 0);
    check_edge("fmin(expm1(x), 4) at 1000", __enzyme_autodiff((void *)d_expm1_clamped, 1000.0), 0.0);
    check_edge("fmin(sinh(x), 5) at 1000", __enzyme_autodiff((void *)d_sinh_clamped, 1000.0), 0.0);
    check_edge("fmin(cosh(x), 5) at -1000", __enzyme_autodiff((void *)d_cosh_clamped, -1000.0), 0.0);
    check_edge("fmax(log(x), -5) at 0", __enzyme_autodiff((void *)d_log_clamped, 0.0), 0.0);
    check_close("fmax(log(x), -5) at 2", __enzyme_autodiff((void *)d_log_clamped, 2.0), 0.5, EXACT_RTOL, 0);

    check_edge("tanh at 30", __enzyme_autodiff((void *)d_tanh, 30.0), 0.0);
    check_edge("tanh at -inf", __enzyme_autodiff((void *)d_tanh, -INFINITY), 0.0);
    check_close("tanh at 8", __enzyme_autodiff((void *)d_tanh, 8.0), FD1(d_tanh, 8.0), 1e-4, 1e-16);
    check_close("tanh at 0.5", __enzyme_autodiff((void *)d_tanh, 0.5), FD1(d_tanh, 0.5), FD_RTOL, FD_ATOL);
    check_edge("erf at 30", __enzyme_autodiff((void *)d_erf, 30.0), 0.0);
    check_edge("erf at -inf", __enzyme_autodiff((void *)d_erf, -INFINITY), 0.0);
    check_edge("erfc at 30", __enzyme_autodiff((void *)d_erfc, 30.0), 0.0);
    check_close("erf at 4", __enzyme_autodiff((void *)d_erf, 4.0), 2 / sqrt(M_PI) * exp(-16.0), 1e-13, 0);
    check_edge("atan at inf", __enzyme_autodiff((void *)d_atan, INFINITY), 0.0);
    check_edge("atan at 1e200", __enzyme_autodiff((void *)d_atan, 1e200), 0.0);
}

static void check_spellings(void) {
    check_edge("sqrtf at 0", __enzyme_autodifff((void *)f_sqrt, 0.0f), 0.0);
    check_edge("logf at 0", __enzyme_autodifff((void *)f_log, 0.0f), INFINITY);
    check_edge("asinf at 1", __enzyme_autodifff((void *)f_asin, 1.0f), INFINITY);
    zyg_gradf2 g = __enzyme_autodifff2((void *)f_hypot, 0.0f, 0.0f);
    check_edge("hypotf at 0 d/dx", g.d0, 0.0);
    check_edge("hypotf at 0 d/dy", g.d1, 0.0);
    check_edge("sqrtl at 0", (double)__enzyme_autodiffl((void *)l_sqrt, 0.0L), 0.0);
    check_edge("logl at 0", (double)__enzyme_autodiffl((void *)l_log, 0.0L), INFINITY);
    check_edge_tol("sqrtl at 4", (double)__enzyme_autodiffl((void *)l_sqrt, 4.0L), 0.25, 1e-15);
}

static void check_maps(void) {
    double xs[N] = {0.0, -0.0, 4.0, 0.25, 0.0, INFINITY, 9.0, 0.0};
    double want_sqrt[N], want_log[N];
    for (int i = 0; i < N; i++) {
        want_sqrt[i] = xs[i] == 0 ? 0.0 : 0.5 / sqrt(xs[i]);
        want_log[i] = 1.0 / (xs[i] + 0.0);
    }
    CHECK_MAP(sqrt, xs, want_sqrt);
    CHECK_MAP(log, xs, want_log);

    double as[N] = {1.0, -1.0, 0.5, 0.0, -0.5, 1.0, 0.25, -1.0};
    double want_asin[N];
    for (int i = 0; i < N; i++)
        want_asin[i] = fabs(as[i]) == 1 ? INFINITY : 1 / sqrt(1 - as[i] * as[i]);
    CHECK_MAP(asin, as, want_asin);

    double big[N] = {1000.0, 1.0, 710.0, -1000.0, 0.5, 800.0, -INFINITY, 2.0};
    double want_exp[N], want_sinh[N], want_cosh[N], want_tanh[N];
    for (int i = 0; i < N; i++) {
        want_exp[i] = exp(big[i]) < 1e300 ? exp(big[i]) : 0.0;
        want_sinh[i] = sinh(big[i]) < 5.0 ? cosh(big[i]) : 0.0;
        want_cosh[i] = cosh(big[i]) < 5.0 ? sinh(big[i]) : 0.0;
        want_tanh[i] = (1 - tanh(big[i])) * (1 + tanh(big[i]));
    }
    CHECK_MAP(exp_clamped, big, want_exp);
    CHECK_MAP(sinh_clamped, big, want_sinh);
    CHECK_MAP(cosh_clamped, big, want_cosh);
    CHECK_MAP(tanh, big, want_tanh);

    double a[N] = {0.0, 3.0, -0.0, 0.0, 1.0, -2.0, 0.0, 5.0};
    double b[N] = {0.0, 4.0, 0.0, -0.0, 0.0, 0.0, 2.0, 12.0};
    double y[N], dy[N], da[N] = {0}, db[N] = {0};
    for (int i = 0; i < N; i++)
        dy[i] = 1.0;
    __enzyme_autodiff((void *)norm2_map, enzyme_dup, y, dy, enzyme_dup, a, da, enzyme_dup, b, db, enzyme_const, N);
    for (int i = 0; i < N; i++) {
        double r = hypot(a[i], b[i]);
        check_edge("norm2_map d/da", da[i], r == 0 ? 0.0 : a[i] / r);
        check_edge("norm2_map d/db", db[i], r == 0 ? 0.0 : b[i] / r);
    }
}

int main(void) {
    check_scalars();
    check_spellings();
    check_maps();
    return zyg_report();
}
