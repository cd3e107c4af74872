/* Helpers for zyg's end-to-end tests: the Enzyme-style entry points, central finite
 * differences, and a checker that prints one line per comparison and a verdict. */
#ifndef ZYG_CHECK_H
#define ZYG_CHECK_H
#include <math.h>
#include <stdio.h>

extern int enzyme_out, enzyme_const, enzyme_dup, enzyme_dupnoneed;
extern int zyg_out, zyg_const;
double __enzyme_autodiff(void *, ...);
float __enzyme_autodifff(void *, ...);
typedef struct { double d0, d1; } zyg_grad2;
typedef struct { double d0, d1, d2; } zyg_grad3;
typedef struct { float d0, d1; } zyg_gradf2;
zyg_grad2 __enzyme_autodiff2(void *, ...);
zyg_grad3 __enzyme_autodiff3(void *, ...);
zyg_gradf2 __enzyme_autodifff2(void *, ...);

static int zyg_failures = 0, zyg_checks = 0;

/* |got - want| <= atol + rtol * |want| */
static void check_close(const char *label, double got, double want, double rtol, double atol) {
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
/* float functions: evaluated in double around a float point, with a larger step */
#define ZYG_STEPF 1e-3
#define FDF1(f, x) (((double)(f)((float)((x) + ZYG_STEPF)) - (double)(f)((float)((x) - ZYG_STEPF))) / (2 * ZYG_STEPF))

/* Tolerances: against finite differences, and against an exact derivative. */
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

static int zyg_report(void) {
    if (zyg_failures)
        printf("FAILED %d of %d\n", zyg_failures, zyg_checks);
    else
        printf("ALL OK (%d checks)\n", zyg_checks);
    return zyg_failures != 0;
}
#endif
