// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// RUN: %grad-run -O3 %s %t.native -march=native | FileCheck %s
// RUN: %grad-run -O3 %s %t.vec -march=native -fno-math-errno | FileCheck %s
// RUN: grep -q "@llvm.maxnum.v" %t.vec.O3.ll
// RUN: grep -q "@llvm.fabs.v" %t.vec.O3.ll
// RUN: grep -q "@llvm.atan2.v" %t.vec.O3.ll
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Kinks, ties, jumps and NaN operands, scalar and (at -O3 -march=native -fno-math-errno)
// vectorised:
// - fabs and copysign at ±0, and fmin/fmax of equal operands, take the average of the two
//   one-sided derivatives (0, and half of the adjoint to each operand), which is also what
//   central differences give, whichever order LLVM puts fmax's operands in;
// - fmax(x, NaN) and fmin(x, NaN) are x in C: x takes the adjoint. llvm.maximum
//   (__builtin_elementwise_maximum) propagates NaN: the NaN operand takes it;
// - the rounding functions give 0, at integers too; fmod(x, y) gives 1 and -n, with n the
//   exact quotient (fmod(1, 0.1) = 1 - 9 * 0.1: n = 9, though 1 / 0.1 rounds to 10);
// - atan2 at (0, 0) and with an infinite operand gives 0, not 0/0 or inf/inf.
#include "zyg_check.h"
#include "zyg_edge.h"

double d_fabs(double x) { return fabs(x); }
double d_fmax(double x, double y) { return fmax(x, y); }
double d_fmin(double x, double y) { return fmin(x, y); }
double d_fmax_const_right(double x) { return fmax(x, 0.25); }
double d_fmax_const_left(double x) { return fmax(0.25, x); }
double d_fmin_const_right(double x) { return fmin(x, -1.5); }
double d_maximum(double x, double y) { return __builtin_elementwise_maximum(x, y); }
double d_minimum(double x, double y) { return __builtin_elementwise_minimum(x, y); }
double d_copysign(double x, double y) { return copysign(x, y) * 2.0 + y; }
double d_floor(double x) { return floor(x) + x * 0.0; }
double d_round(double x) { return round(x); }
double d_rint(double x) { return rint(x); }
double d_trunc(double x) { return trunc(x); }
double d_ceil(double x) { return ceil(x); }
double d_fmod(double x, double y) { return fmod(x, y); }
double d_atan2(double y, double x) { return atan2(y, x); }

float f_fabs(float x) { return fabsf(x); }
float f_fmax(float x, float y) { return fmaxf(x, y); }
long double l_fabs(long double x) { return fabsl(x); }
long double l_fmax(long double x, long double y) { return fmaxl(x, y); }
long double __enzyme_autodiffl(void *, ...);
typedef struct { long double d0, d1; } lgrad2;
lgrad2 __enzyme_autodiffl2(void *, ...);

void fabs_map(double *y, const double *x, int n) {
    for (int i = 0; i < n; i++)
        y[i] = fabs(x[i]);
}

#define MAP2(name, expr)                                                                       \
    void name##_map(double *y, const double *a, const double *b, int n) {                      \
        for (int i = 0; i < n; i++)                                                            \
            y[i] = expr(a[i], b[i]);                                                           \
    }
MAP2(fmax, fmax)
MAP2(fmin, fmin)
MAP2(copysign, copysign)
MAP2(fmod, fmod)
MAP2(atan2, atan2)

enum { N = 8 };

/* Runs the two-operand map `name` with y's shadow seeded 1 and checks da and db. */
#define CHECK_MAP2(name, a, b, want_a, want_b)                                                 \
    do {                                                                                       \
        double y[N], dy[N], da[N] = {0}, db[N] = {0};                                          \
        for (int i = 0; i < N; i++)                                                            \
            dy[i] = 1.0;                                                                       \
        __enzyme_autodiff((void *)name##_map, enzyme_dup, y, dy, enzyme_dup, a, da, enzyme_dup, b, db, \
                          enzyme_const, N);                                                    \
        for (int i = 0; i < N; i++) {                                                          \
            char label[80];                                                                    \
            snprintf(label, sizeof label, #name "_map(%g, %g) d/da", a[i], b[i]);              \
            check_edge(label, da[i], want_a[i]);                                               \
            snprintf(label, sizeof label, #name "_map(%g, %g) d/db", a[i], b[i]);              \
            check_edge(label, db[i], want_b[i]);                                               \
        }                                                                                      \
    } while (0)

static void check2(const char *label, zyg_grad2 g, double want_x, double want_y) {
    char l[80];
    snprintf(l, sizeof l, "%s d/dx", label);
    check_edge(l, g.d0, want_x);
    snprintf(l, sizeof l, "%s d/dy", label);
    check_edge(l, g.d1, want_y);
}

static void check_scalars(void) {
    check_edge("fabs at 0", __enzyme_autodiff((void *)d_fabs, 0.0), 0.0);
    check_edge("fabs at -0", __enzyme_autodiff((void *)d_fabs, -0.0), 0.0);
    check_edge("fabs at -2", __enzyme_autodiff((void *)d_fabs, -2.0), -1.0);
    check_close("fabs at 0 (fd)", __enzyme_autodiff((void *)d_fabs, 0.0), FD1(d_fabs, 0.0), FD_RTOL, FD_ATOL);

    check2("fmax(1, 1)", __enzyme_autodiff2((void *)d_fmax, 1.0, 1.0), 0.5, 0.5);
    check2("fmax(-0, 0)", __enzyme_autodiff2((void *)d_fmax, -0.0, 0.0), 0.5, 0.5);
    check2("fmax(2, 1)", __enzyme_autodiff2((void *)d_fmax, 2.0, 1.0), 1.0, 0.0);
    check2("fmax(1, NaN)", __enzyme_autodiff2((void *)d_fmax, 1.0, NAN), 1.0, 0.0);
    check2("fmax(NaN, 1)", __enzyme_autodiff2((void *)d_fmax, NAN, 1.0), 0.0, 1.0);
    check2("fmin(1, 1)", __enzyme_autodiff2((void *)d_fmin, 1.0, 1.0), 0.5, 0.5);
    check2("fmin(2, 1)", __enzyme_autodiff2((void *)d_fmin, 2.0, 1.0), 0.0, 1.0);
    check2("fmin(1, NaN)", __enzyme_autodiff2((void *)d_fmin, 1.0, NAN), 1.0, 0.0);
    check2("fmin(NaN, 1)", __enzyme_autodiff2((void *)d_fmin, NAN, 1.0), 0.0, 1.0);
    /* A tie with a constant, whichever side LLVM keeps it on: half, as central differences. */
    check_edge("fmax(x, 0.25) at 0.25", __enzyme_autodiff((void *)d_fmax_const_right, 0.25), 0.5);
    check_edge("fmax(0.25, x) at 0.25", __enzyme_autodiff((void *)d_fmax_const_left, 0.25), 0.5);
    check_edge("fmin(x, -1.5) at -1.5", __enzyme_autodiff((void *)d_fmin_const_right, -1.5), 0.5);
    check_close("fmax(x, 0.25) at 0.25 (fd)", __enzyme_autodiff((void *)d_fmax_const_right, 0.25),
                FD1(d_fmax_const_right, 0.25), FD_RTOL, FD_ATOL);
    check2("maximum(1, NaN)", __enzyme_autodiff2((void *)d_maximum, 1.0, NAN), 0.0, 1.0);
    check2("maximum(NaN, 1)", __enzyme_autodiff2((void *)d_maximum, NAN, 1.0), 1.0, 0.0);
    check2("maximum(3, 3)", __enzyme_autodiff2((void *)d_maximum, 3.0, 3.0), 0.5, 0.5);
    check2("maximum(3, -1)", __enzyme_autodiff2((void *)d_maximum, 3.0, -1.0), 1.0, 0.0);
    check2("minimum(NaN, 1)", __enzyme_autodiff2((void *)d_minimum, NAN, 1.0), 1.0, 0.0);
    check2("minimum(3, -1)", __enzyme_autodiff2((void *)d_minimum, 3.0, -1.0), 0.0, 1.0);

    check2("copysign(0, -1)", __enzyme_autodiff2((void *)d_copysign, 0.0, -1.0), 0.0, 1.0);
    check2("copysign(-0, 3)", __enzyme_autodiff2((void *)d_copysign, -0.0, 3.0), 0.0, 1.0);
    check2("copysign(-2, -1)", __enzyme_autodiff2((void *)d_copysign, -2.0, -1.0), 2.0, 1.0);
    check2("copysign(2, -0)", __enzyme_autodiff2((void *)d_copysign, 2.0, -0.0), -2.0, 1.0);

    check_edge("floor at 2", __enzyme_autodiff((void *)d_floor, 2.0), 0.0);
    check_edge("round at 0.5", __enzyme_autodiff((void *)d_round, 0.5), 0.0);
    check_edge("rint at 1.5", __enzyme_autodiff((void *)d_rint, 1.5), 0.0);
    check_edge("trunc at -3", __enzyme_autodiff((void *)d_trunc, -3.0), 0.0);
    check_edge("ceil at inf", __enzyme_autodiff((void *)d_ceil, INFINITY), 0.0);

    check2("fmod(1, 0.1)", __enzyme_autodiff2((void *)d_fmod, 1.0, 0.1), 1.0, -9.0);
    check2("fmod(-7, 2)", __enzyme_autodiff2((void *)d_fmod, -7.0, 2.0), 1.0, 3.0);
    check2("fmod(5, inf)", __enzyme_autodiff2((void *)d_fmod, 5.0, INFINITY), 1.0, 0.0);
    check2("fmod(-0, 1)", __enzyme_autodiff2((void *)d_fmod, -0.0, 1.0), 1.0, 0.0);
    check_close("fmod(7.3, 2) (fd)", __enzyme_autodiff2((void *)d_fmod, 7.3, 2.0).d1, FD2_1(d_fmod, 7.3, 2.0), FD_RTOL,
                FD_ATOL);

    check2("atan2(0, 0)", __enzyme_autodiff2((void *)d_atan2, 0.0, 0.0), 0.0, 0.0);
    check2("atan2(-0, -0)", __enzyme_autodiff2((void *)d_atan2, -0.0, -0.0), 0.0, 0.0);
    check2("atan2(1, inf)", __enzyme_autodiff2((void *)d_atan2, 1.0, INFINITY), 0.0, 0.0);
    check2("atan2(inf, -1)", __enzyme_autodiff2((void *)d_atan2, INFINITY, -1.0), 0.0, 0.0);
    check2("atan2(3, 4)", __enzyme_autodiff2((void *)d_atan2, 3.0, 4.0), 0.16, -0.12);
    check2("atan2(1e-170, 1e-170)", __enzyme_autodiff2((void *)d_atan2, 1e-170, 1e-170), 0.5e170, -0.5e170);
}

static void check_spellings(void) {
    check_edge("fabsf at -0", __enzyme_autodifff((void *)f_fabs, -0.0f), 0.0);
    zyg_gradf2 g = __enzyme_autodifff2((void *)f_fmax, 1.5f, 1.5f);
    check_edge("fmaxf tie d/dx", g.d0, 0.5);
    check_edge("fmaxf tie d/dy", g.d1, 0.5);
    g = __enzyme_autodifff2((void *)f_fmax, 1.5f, NAN);
    check_edge("fmaxf(x, NaN) d/dx", g.d0, 1.0);
    check_edge("fmaxf(x, NaN) d/dy", g.d1, 0.0);
    check_edge("fabsl at 0", (double)__enzyme_autodiffl((void *)l_fabs, 0.0L), 0.0);
    lgrad2 l = __enzyme_autodiffl2((void *)l_fmax, 2.0L, 2.0L);
    check_edge("fmaxl tie d/dx", (double)l.d0, 0.5);
    check_edge("fmaxl tie d/dy", (double)l.d1, 0.5);
}

static void check_maps(void) {
    double x[N] = {0.0, -0.0, -2.0, 3.0, 0.0, -0.5, 0.0, 1.0};
    double y[N], dy[N], dx[N] = {0};
    for (int i = 0; i < N; i++)
        dy[i] = 1.0;
    __enzyme_autodiff((void *)fabs_map, enzyme_dup, y, dy, enzyme_dup, x, dx, enzyme_const, N);
    for (int i = 0; i < N; i++)
        check_edge("fabs_map", dx[i], x[i] > 0 ? 1.0 : x[i] < 0 ? -1.0 : 0.0);

    double a[N] = {1.0, 2.0, 1.0, NAN, -0.0, 5.0, NAN, 0.5};
    double b[N] = {1.0, 1.0, NAN, 1.0, 0.0, 7.0, 2.0, 0.5};
    double max_a[N] = {0.5, 1, 1, 0, 0.5, 0, 0, 0.5}, max_b[N] = {0.5, 0, 0, 1, 0.5, 1, 1, 0.5};
    double min_a[N] = {0.5, 0, 1, 0, 0.5, 1, 0, 0.5}, min_b[N] = {0.5, 1, 0, 1, 0.5, 0, 1, 0.5};
    CHECK_MAP2(fmax, a, b, max_a, max_b);
    CHECK_MAP2(fmin, a, b, min_a, min_b);

    double m[N] = {0.0, -0.0, -2.0, 2.0, 0.0, 3.0, -1.0, 0.5};
    double s[N] = {-1.0, 1.0, -1.0, -0.0, 2.0, 4.0, 1.0, -2.0};
    double cs_m[N], zero[N] = {0};
    for (int i = 0; i < N; i++)
        cs_m[i] = m[i] == 0 ? 0.0 : copysign(1.0, m[i]) * copysign(1.0, s[i]);
    CHECK_MAP2(copysign, m, s, cs_m, zero);

    double u[N] = {1.0, -7.0, 5.0, 7.3, -0.0, 6.0, 2.5, -9.5};
    double v[N] = {0.1, 2.0, INFINITY, 2.0, 1.0, 3.0, -1.0, 4.0};
    double ones[N], mod_v[N] = {-9.0, 3.0, 0.0, -3.0, 0.0, -2.0, 2.0, 2.0};
    for (int i = 0; i < N; i++)
        ones[i] = 1.0;
    CHECK_MAP2(fmod, u, v, ones, mod_v);

    /* atan2(a, b): d/da = b / (a² + b²), d/db = -a / (a² + b²); 0 at (0, 0) and where an
     * operand is infinite. */
    double ay[N] = {0.0, 3.0, 1.0, INFINITY, -0.0, 1e-170, -2.0, 5.0};
    double bx[N] = {0.0, 4.0, INFINITY, -1.0, -0.0, 1e-170, 0.0, -12.0};
    double at_a[N] = {0, 0.16, 0, 0, 0, 0.5e170, 0, -12.0 / 169};
    double at_b[N] = {0, -0.12, 0, 0, 0, -0.5e170, 0.5, -5.0 / 169};
    CHECK_MAP2(atan2, ay, bx, at_a, at_b);
}

int main(void) {
    check_scalars();
    check_spellings();
    check_maps();
    return zyg_report();
}
