// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Forward mode through callbacks: a composite Gauss-Legendre quadrature and a fixed-step
// integrator take their integrand / right-hand side as a function pointer passed
// `enzyme_const` (zyg specialises the differentiated copy to it), the integrand itself
// depending on active parameters passed through a `void *` context (`enzyme_dup`), and a
// callback handed down one more level to a helper. Tangents against central differences.
#include <string.h>
#include "zyg_check.h"

typedef double (*integrand)(double s, const void *ctx);

static double quad(integrand f, const void *ctx, double a, double b, int panels) {
    static const double nodes[3] = {-0.7745966692414834, 0.0, 0.7745966692414834};
    static const double weights[3] = {5.0 / 9.0, 8.0 / 9.0, 5.0 / 9.0};
    double w = (b - a) / panels, total = 0;
    for (int p = 0; p < panels; p++) {
        double mid = a + (p + 0.5) * w;
        for (int k = 0; k < 3; k++) total += weights[k] * f(mid + 0.5 * w * nodes[k], ctx);
    }
    return 0.5 * w * total;
}

typedef struct { double amp, rate, freq; } params;

static double damped(double s, const void *ctx) {
    const params *p = ctx;
    return p->amp * exp(-p->rate * s) * cos(p->freq * s);
}
static double bump(double s, const void *ctx) {
    const params *p = ctx;
    return p->amp / (1.0 + p->rate * s * s) + sin(p->freq * s) * s;
}

/* the callback handed down: energy = (int f)^2 + int f over a second interval */
static double energy(integrand f, const params *p, double upper) {
    double a = quad(f, p, 0.0, upper, 8);
    return a * a + quad(f, p, upper, upper + 1.0, 4);
}

typedef void (*rhs)(const double *y, double *dy, const params *p);
static void decay_rhs(const double *y, double *dy, const params *p) {
    dy[0] = -p->rate * y[0] + p->amp * sin(y[1]);
    dy[1] = p->freq * y[0] - 0.1 * y[1];
}
static void euler(rhs f, double *y, const params *p, double dt, int steps) {
    double k[2];
    for (int s = 0; s < steps; s++) {
        f(y, k, p);
        y[0] += dt * k[0];
        y[1] += dt * k[1];
    }
}

int main(void) {
    double h = 1e-6;
    params ps[2] = {{1.3, 0.4, 2.1}, {0.7, 1.1, 0.9}};
    params dirs[3] = {{1, 0, 0}, {0, 0, 1}, {0.3, -0.5, 0.2}};
    for (int i = 0; i < 2; i++)
        for (int d = 0; d < 3; d++) {
            params p = ps[i], dp = dirs[d];
            params pp = {p.amp + h * dp.amp, p.rate + h * dp.rate, p.freq + h * dp.freq};
            params pm = {p.amp - h * dp.amp, p.rate - h * dp.rate, p.freq - h * dp.freq};
            double up = 1.5 + i, dup = d == 2 ? 0.6 : 0.0;
            double t = __enzyme_fwddiff((void *)energy, enzyme_const, damped, enzyme_dup, &p, &dp, up, dup);
            double want = (energy(damped, &pp, up + h * dup) - energy(damped, &pm, up - h * dup)) / (2 * h);
            check_close("energy(damped)", t, want, FD_RTOL, FD_ATOL);
            t = __enzyme_fwddiff((void *)energy, enzyme_const, bump, enzyme_dup, &p, &dp, up, dup);
            want = (energy(bump, &pp, up + h * dup) - energy(bump, &pm, up - h * dup)) / (2 * h);
            check_close("energy(bump)", t, want, FD_RTOL, FD_ATOL);
            double y[2] = {1.0, 0.5 * i}, dy[2] = {0.2 * d, 1.0 - 0.3 * d};
            double yp[2] = {y[0] + h * dy[0], y[1] + h * dy[1]}, ym[2] = {y[0] - h * dy[0], y[1] - h * dy[1]};
            __enzyme_fwddiff((void *)euler, enzyme_const, decay_rhs, enzyme_dup, y, dy, enzyme_dup, &p, &dp, enzyme_const, 0.05, enzyme_const, 60);
            euler(decay_rhs, yp, &pp, 0.05, 60);
            euler(decay_rhs, ym, &pm, 0.05, 60);
            check_close("euler y0", dy[0], (yp[0] - ym[0]) / (2 * h), FD_RTOL, FD_ATOL);
            check_close("euler y1", dy[1], (yp[1] - ym[1]) / (2 * h), FD_RTOL, FD_ATOL);
        }
    return zyg_report();
}
