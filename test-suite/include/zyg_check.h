/* Helpers for zyg's end-to-end tests: the Enzyme-style entry points, central finite
 * differences, and a checker that prints one line per comparison (`ok LABEL got=.. want=..`
 * or `FAIL LABEL ...`) and a verdict. Usable from C and from C++ (inside extern "C"). */
#ifndef ZYG_CHECK_H
#define ZYG_CHECK_H
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

extern int enzyme_out, enzyme_const, enzyme_dup, enzyme_dupnoneed;
extern int zyg_out, zyg_const;
double __enzyme_autodiff(void *, ...);
float __enzyme_autodifff(void *, ...);
double __enzyme_fwddiff(void *, ...);
typedef struct { double d0, d1; } zyg_grad2;
typedef struct { double d0, d1, d2; } zyg_grad3;  /* 24 bytes: returned through sret */
typedef struct { float d0, d1; } zyg_gradf2;       /* <2 x float> in registers */
typedef struct { float d0, d1, d2; } zyg_gradf3;   /* { <2 x float>, float } in registers */
zyg_grad2 __enzyme_autodiff2(void *, ...);
zyg_grad3 __enzyme_autodiff3(void *, ...);
zyg_gradf2 __enzyme_autodifff2(void *, ...);
zyg_gradf3 __enzyme_autodifff3(void *, ...);

static int zyg_failures = 0, zyg_checks = 0;

/* |got - want| <= atol + rtol * |want| */
__attribute__((unused)) static void check_close(const char *label, double got, double want, double rtol, double atol) {
    zyg_checks++;
    int ok = fabs(got - want) <= atol + rtol * fabs(want) && got == got;
    if (!ok)
        zyg_failures++;
    printf("%s %s got=%.12g want=%.12g\n", ok ? "ok" : "FAIL", label, got, want);
}

/* Central differences; the step scales with |x|. */
#define ZYG_STEP(x) (1e-6 * (fabs(x) > 1.0 ? fabs(x) : 1.0))
#define FD1(f, x) (((f)((x) + ZYG_STEP(x)) - (f)((x) - ZYG_STEP(x))) / (2 * ZYG_STEP(x)))
#define FD2_0(f, x, y) (((f)((x) + ZYG_STEP(x), y) - (f)((x) - ZYG_STEP(x), y)) / (2 * ZYG_STEP(x)))
#define FD2_1(f, x, y) (((f)(x, (y) + ZYG_STEP(y)) - (f)(x, (y) - ZYG_STEP(y))) / (2 * ZYG_STEP(y)))
#define FD3_0(f, x, y, z) (((f)((x) + ZYG_STEP(x), y, z) - (f)((x) - ZYG_STEP(x), y, z)) / (2 * ZYG_STEP(x)))
#define FD3_1(f, x, y, z) (((f)(x, (y) + ZYG_STEP(y), z) - (f)(x, (y) - ZYG_STEP(y), z)) / (2 * ZYG_STEP(y)))
#define FD3_2(f, x, y, z) (((f)(x, y, (z) + ZYG_STEP(z)) - (f)(x, y, (z) - ZYG_STEP(z))) / (2 * ZYG_STEP(z)))
/* float functions: evaluated in float at float points x +- h with a larger step h; the
 * divisor is the distance between those two float points, not 2h. */
#define ZYG_STEPF 1e-3
__attribute__((unused)) static double zyg_fd_float1(float (*f)(float), double x) {
    double h = ZYG_STEPF * (fabs(x) > 1.0 ? fabs(x) : 1.0);
    float lo = (float)(x - h), hi = (float)(x + h);
    return ((double)f(hi) - (double)f(lo)) / ((double)hi - (double)lo);
}
__attribute__((unused)) static double zyg_fd_float2(float (*f)(float, float), double x, double y, int which) {
    double at = which ? y : x, h = ZYG_STEPF * (fabs(at) > 1.0 ? fabs(at) : 1.0);
    float lo = (float)(at - h), hi = (float)(at + h);
    double up = which ? f((float)x, hi) : f(hi, (float)y);
    double down = which ? f((float)x, lo) : f(lo, (float)y);
    return (up - down) / ((double)hi - (double)lo);
}
#define FDF1(f, x) zyg_fd_float1((f), (x))
#define FDF2_0(f, x, y) zyg_fd_float2((f), (x), (y), 0)
#define FDF2_1(f, x, y) zyg_fd_float2((f), (x), (y), 1)

/* Tolerances. Against central differences in double the error is about 1e-10 |f| (rounding,
 * eps |f| / h) plus 1e-13 |f'''| (truncation, h^2 / 6), so FD_RTOL has a wide margin where
 * |f| is not much larger than |f'|. Against an exact derivative: EXACT_*. float functions,
 * whose finite differences are taken in float with the larger step: FLOAT_*. */
#define FD_RTOL 1e-6
#define FD_ATOL 1e-7
#define EXACT_RTOL 1e-12
#define EXACT_ATOL 1e-14
#define FLOAT_RTOL 2e-3
#define FLOAT_ATOL 2e-3

/* Checks a two-argument gradient g (fields d0, d1) of f at (x, y) against central
 * differences in each argument. */
#define CHECK_FD2(f, x, y, g)                                                      \
    do {                                                                           \
        check_close("df/dx", (g).d0, FD2_0(f, x, y), FD_RTOL, FD_ATOL);            \
        check_close("df/dy", (g).d1, FD2_1(f, x, y), FD_RTOL, FD_ATOL);            \
    } while (0)

/* The same for three arguments (fields d0, d1, d2). */
#define CHECK_FD3(f, x, y, z, g)                                                   \
    do {                                                                           \
        check_close("df/dx", (g).d0, FD3_0(f, x, y, z), FD_RTOL, FD_ATOL);         \
        check_close("df/dy", (g).d1, FD3_1(f, x, y, z), FD_RTOL, FD_ATOL);         \
        check_close("df/dz", (g).d2, FD3_2(f, x, y, z), FD_RTOL, FD_ATOL);         \
    } while (0)

/* A two-argument float function's gradient g against float finite differences. */
#define CHECK_FDF2(f, x, y, g)                                                     \
    do {                                                                           \
        check_close("df/dx", (g).d0, FDF2_0(f, x, y), FLOAT_RTOL, FLOAT_ATOL);     \
        check_close("df/dy", (g).d1, FDF2_1(f, x, y), FLOAT_RTOL, FLOAT_ATOL);     \
    } while (0)

/* Checks grad[0..n) (n <= 64) against central differences of f in each element of x:
 * f(x', ctx) on a copy x' of x with one element moved. */
typedef double (*zyg_array_fn)(const double *x, void *ctx);
__attribute__((unused)) static void check_array_fd(const char *label, zyg_array_fn f, void *ctx, const double *x,
                                                   int n, const double *grad) {
    double moved[64];
    if (n > 64) {
        check_close("check_array_fd: n <= 64", n, 64, 0, 0);
        return;
    }
    for (int k = 0; k < n; k++) {
        for (int j = 0; j < n; j++)
            moved[j] = x[j];
        double h = ZYG_STEP(x[k]);
        moved[k] = x[k] + h;
        double up = f(moved, ctx);
        moved[k] = x[k] - h;
        double down = f(moved, ctx);
        check_close(label, grad[k], (up - down) / (2 * h), FD_RTOL, FD_ATOL);
    }
}

/* The same for arrays of any length, checking every `every`-th element (k = 0, every,
 * 2 every, ...) and the last one: for gradients of large inputs (a 64x64 matrix). */
__attribute__((unused)) static void check_array_fd_every(const char *label, zyg_array_fn f, void *ctx, const double *x,
                                                         int n, const double *grad, int every) {
    double *moved = (double *)malloc(sizeof(double) * (size_t)n);
    for (int j = 0; j < n; j++)
        moved[j] = x[j];
    for (int k = 0; k < n; k = (k + every < n || k == n - 1) ? k + every : n - 1) {
        double h = ZYG_STEP(x[k]);
        moved[k] = x[k] + h;
        double up = f(moved, ctx);
        moved[k] = x[k] - h;
        double down = f(moved, ctx);
        moved[k] = x[k];
        check_close(label, grad[k], (up - down) / (2 * h), FD_RTOL, FD_ATOL);
    }
    free(moved);
}

/* Prints the verdict, `ALL OK` or `FAILED n`, and returns main's exit status. */
__attribute__((unused)) static int zyg_report(void) {
    if (zyg_failures)
        printf("FAILED %d of %d\n", zyg_failures, zyg_checks);
    else
        printf("ALL OK (%d checks)\n", zyg_checks);
    return zyg_failures != 0;
}
#endif
