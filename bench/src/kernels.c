/* Scalar kernels for zyg's benchmarks. build.rs compiles this with clang -O2, runs
 * `zyg grad` on it, and links the result; the gradients come from the __enzyme_autodiff
 * calls below. */
#include <math.h>

extern int enzyme_const;
double __enzyme_autodiff(void *, ...);
typedef struct { double dx, dy; } grad2;
grad2 __enzyme_autodiff2(void *, ...);

/* x^n by a loop of n multiplications. */
double pow_loop(double x, int n) {
    double r = 1.0;
    for (int i = 0; i < n; i++)
        r *= x;
    return r;
}

double pow_loop_grad(double x, int n) {
    return __enzyme_autodiff((void *)pow_loop, x, enzyme_const, n);
}

/* The same derivative by hand: the product rule carried along the loop
 * (d(r*x) = dr*x + r), the bar zyg's generated code is measured against. */
double pow_loop_hand(double x, int n) {
    double r = 1.0, dr = 0.0;
    for (int i = 0; i < n; i++) {
        dr = dr * x + r;
        r *= x;
    }
    return dr;
}

/* A branchy scalar function: nested conditions, a switch and math calls. */
double branchy(double x, double y) {
    double s;
    if (x > y)
        s = sin(x) * y + exp(-x * x);
    else if (x < -1.0)
        s = log(1.0 + x * x) - cos(y);
    else
        s = x * y * y + tanh(x);
    switch ((int)floor(fabs(y)) % 3) {
    case 0: s += sqrt(1.0 + y * y); break;
    case 1: s *= 1.5; break;
    default: s -= x; break;
    }
    return s;
}

double branchy_many(const double *xs, const double *ys, int n) {
    double total = 0.0;
    for (int i = 0; i < n; i++)
        total += branchy(xs[i], ys[i]);
    return total;
}

void branchy_grad_many(const double *xs, const double *ys, int n, double *dx, double *dy) {
    for (int i = 0; i < n; i++) {
        grad2 g = __enzyme_autodiff2((void *)branchy, xs[i], ys[i]);
        dx[i] = g.dx;
        dy[i] = g.dy;
    }
}
