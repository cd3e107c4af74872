// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Callbacks: a request passes a function to the function it differentiates (quadrature of
// f, an ODE integrator with a right-hand side handed down to a step helper, a libm function
// as the callback). zyg differentiates a copy specialised to the callback, so the calls
// through the pointer become direct calls.
#include "zyg_check.h"

typedef double (*fn1)(double, double);
typedef void (*rhs_fn)(const double *y, const double *p, double *dy);

double bump(double x, double a) { return exp(-a * x * x) * cos(x); }

double integrate(fn1 f, double a, double lo, double hi, int n) {
    double h = (hi - lo) / n, s = 0.5 * (f(lo, a) + f(hi, a));
    for (int i = 1; i < n; i++)
        s += f(lo + i * h, a);
    return s * h;
}

void lotka(const double *y, const double *p, double *dy) {
    dy[0] = p[0] * y[0] - p[1] * y[0] * y[1];
    dy[1] = p[2] * y[0] * y[1] - p[3] * y[1];
}

__attribute__((noinline)) static void euler_step(rhs_fn rhs, double *y, const double *p, double h) {
    double dy[2];
    rhs(y, p, dy);
    y[0] += h * dy[0];
    y[1] += h * dy[1];
}

double simulate(rhs_fn rhs, const double *p, int steps) {
    double y[2] = {1.0, 0.5};
    for (int s = 0; s < steps; s++)
        euler_step(rhs, y, p, 0.05);
    return y[0] * y[1];
}

double apply(double (*g)(double), double x) { return g(x) * g(2.0 * x); }

static double integrate_a(double a) { return integrate(bump, a, -1.0, 2.0, 40); }
static double simulate_p(const double *p) { return simulate(lotka, p, 30); }

int main(void) {
    for (double a = 0.3; a < 2.0; a += 0.7) {
        double d = __enzyme_autodiff((void *)integrate, bump, a, enzyme_const, -1.0, enzyme_const, 2.0,
                                     enzyme_const, 40);
        check_close("dI/da", d, FD1(integrate_a, a), FD_RTOL, FD_ATOL);
    }
    double p[4] = {1.1, 0.4, 0.3, 0.9}, dp[4] = {0};
    __enzyme_autodiff((void *)simulate, lotka, enzyme_dup, p, dp, enzyme_const, 30);
    for (int k = 0; k < 4; k++) {
        double q[4] = {p[0], p[1], p[2], p[3]}, h = 1e-6;
        q[k] = p[k] + h;
        double up = simulate_p(q);
        q[k] = p[k] - h;
        double down = simulate_p(q);
        check_close("dsim/dp", dp[k], (up - down) / (2 * h), FD_RTOL, FD_ATOL);
    }
    for (double x = -0.5; x < 1.0; x += 0.6) {
        double d = __enzyme_autodiff((void *)apply, sin, x);
        check_close("dapply/dx", d, cos(x) * sin(2 * x) + 2 * sin(x) * cos(2 * x), EXACT_RTOL, EXACT_ATOL);
    }
    return zyg_report();
}
