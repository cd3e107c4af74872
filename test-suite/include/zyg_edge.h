/* Checks at the edge points of math functions (test-suite/sound/math_*.c): a derivative
 * equal to its documented value, infinities and zeros exactly (either sign of zero),
 * finite values to EXACT_RTOL. Include after zyg_check.h. */
#ifndef ZYG_EDGE_H
#define ZYG_EDGE_H
#include <math.h>
#include <stdio.h>

__attribute__((unused)) static void check_edge(const char *label, double got, double want) {
    int ok;
    if (isinf(want) || want == 0)
        ok = got == want;
    else
        ok = fabs(got - want) <= EXACT_RTOL * fabs(want) + 1e-300;
    zyg_checks++;
    if (!ok)
        zyg_failures++;
    printf("%s %s got=%.17g want=%.17g\n", ok ? "ok" : "FAIL", label, got, want);
}

/* The same with a looser tolerance, for float and long double spellings whose derivative
 * is computed in their own precision. */
__attribute__((unused)) static void check_edge_tol(const char *label, double got, double want, double rtol) {
    int ok;
    if (isinf(want) || want == 0)
        ok = got == want;
    else
        ok = fabs(got - want) <= rtol * fabs(want);
    zyg_checks++;
    if (!ok)
        zyg_failures++;
    printf("%s %s got=%.17g want=%.17g\n", ok ? "ok" : "FAIL", label, got, want);
}
#endif
