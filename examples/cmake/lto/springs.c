// The chain's elastic energy, in its own file: main.c's request differentiates it through
// full LTO (zyg_target_gradients(springs LTO)), where the whole program is one module.
#include <math.h>

// Springs of stiffness k and rest length 1 between neighbouring masses at x[0..n), each
// with a little anharmonic stiffening; and a smooth wall pushing x[0] to the right of 0.
double chain_energy(const double *x, int n, double k) {
    double e = 0;
    for (int i = 0; i + 1 < n; i++) {
        double stretch = x[i + 1] - x[i] - 1;
        e += 0.5 * k * stretch * stretch + 0.1 * k * stretch * stretch * stretch * stretch;
    }
    return e + log(1 + exp(-4 * x[0]));
}
