/* The gradient half of plugin/lto_release_tape_cache.c: a request whose tape takes
 * megabytes, in a file that never releases the cache itself. */
#include <math.h>
#include <string.h>

double __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;

double chain(const double *x, int n) {
    double s = 0, c = 1;
    for (int i = 0; i < n; i++) {
        s += c * sin(x[i]);
        c = 0.5 * c + 0.5 * cos(x[i]);
    }
    return s;
}

void chain_gradient(const double *x, double *dx, int n) {
    memset(dx, 0, sizeof(double) * (unsigned)n);
    __enzyme_autodiff((void *)chain, enzyme_dup, x, dx, enzyme_const, n);
}
