// A two-file program through full LTO: the request here differentiates total_energy, which
// calls chain_energy from springs.c. Compiled alone, this file could not be differentiated;
// zyg_target_gradients(springs LTO) builds with -flto and fills the request at the link.
// Checks the gradient against central differences at several positions.
#include "zyg/zyg.h"

#include <math.h>
#include <stdio.h>

double __enzyme_autodiff(void *, ...);

double chain_energy(const double *x, int n, double k);

// The chain's springs, and gravity along a slope pulling every mass to the left.
static double total_energy(const double *x, int n) {
    double e = chain_energy(x, n, 3.0);
    for (int i = 0; i < n; i++)
        e += 0.25 * x[i] + 0.05 * sin(x[i]);
    return e;
}

enum { N = 6 };

int main(void) {
    int failures = 0;
    for (int point = 0; point < 4; point++) {
        double x[N], dx[N] = {0};
        for (int i = 0; i < N; i++)
            x[i] = 1.1 * i + 0.3 * sin(2.0 * i + point) - 0.2 * point;
        __enzyme_autodiff((void *)total_energy, enzyme_dup, x, dx, enzyme_const, N);
        for (int i = 0; i < N; i++) {
            const double h = 1e-6, saved = x[i];
            x[i] = saved + h;
            double up = total_energy(x, N);
            x[i] = saved - h;
            double down = total_energy(x, N);
            x[i] = saved;
            double fd = (up - down) / (2 * h);
            if (fabs(dx[i] - fd) > 1e-6 * (1 + fabs(fd))) {
                printf("FAIL d energy / d x[%d] at point %d: zyg %.12g, finite differences %.12g\n", i, point, dx[i], fd);
                failures++;
            }
        }
    }
    if (failures) {
        printf("springs: FAILED (%d mismatches)\n", failures);
        return 1;
    }
    printf("springs: ok: 4 positions x %d masses, the gradient across two files matches central differences\n", N);
    return 0;
}
