/* The other file of plugin/lto_two_files.c: the function it differentiates, and a helper
 * with a registered derivative. The helper's body passes its value through an inline
 * asm instruction (adding zero), which zyg cannot differentiate: the gradient is right only if the registered
 * derivative is used, so only if the helper's calls survive -flto's compile-time inlining
 * (this file has no request of its own). */
#include <math.h>

double smooth_abs(double x) {
    double y = x * x + 0.01;
    __asm__("addsd %1, %0" : "+x"(y) : "x"(0.0));
    return sqrt(y);
}
double d_smooth_abs(double x, double dret) { return dret * x / sqrt(x * x + 0.01); }
void *__zyg_pullback_smooth_abs[2] = {(void *)smooth_abs, (void *)d_smooth_abs};

double energy(const double *x, int n) {
    double e = 0;
    for (int i = 0; i + 1 < n; i++)
        e += smooth_abs(x[i + 1] - x[i]) + 0.5 * sin(x[i]) * x[i + 1];
    return e;
}
