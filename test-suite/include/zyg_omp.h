/* Helpers of the OpenMP tests (test-suite/e2e/omp_*.c): each gradient is computed with
 * teams of 1, 2 and 4 threads, checked against central differences, and the gradients of
 * the larger teams against the one-thread gradient (the same up to the order of sums). */
#ifndef ZYG_OMP_H
#define ZYG_OMP_H
#include <omp.h>
#include "zyg_check.h"

extern double __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed;

/* `ZYG_FOR_TEAMS(t) { ... }` runs its body with omp_set_num_threads(t), t = 1, 2, 4. */
static const int zyg_team_sizes[] = {1, 2, 4};
#define ZYG_FOR_TEAMS(t)                                                                     \
    for (int zyg_k = 0, t = 1; zyg_k < 3 && ((t = zyg_team_sizes[zyg_k]), omp_set_num_threads(t), 1); zyg_k++)

/* got[0..n) against the one-thread gradient `serial`. */
__attribute__((unused)) static void check_same_as_serial(const char *label, const double *got, const double *serial,
                                                         int n) {
    for (int k = 0; k < n; k++)
        check_close(label, got[k], serial[k], 1e-11, 1e-13);
}
#endif
