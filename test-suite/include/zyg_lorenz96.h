/* Lorenz-96's right-hand side, one RK4 step, and `ode`, the integration the
 * loop-checkpointing tests differentiate, on N variables (define N before including).
 * `wrap` is the periodic index. Include after <string.h> and <stdlib.h>. */
#ifndef ZYG_LORENZ96_H
#define ZYG_LORENZ96_H
#ifndef N
#error "define N, the number of variables, before including zyg_lorenz96.h"
#endif

static int wrap(int i) { return i < 0 ? i + N : i >= N ? i - N : i; }

static void rhs(const double *x, double F, double *dx) {
    for (int i = 0; i < N; i++)
        dx[i] = (x[wrap(i + 1)] - x[wrap(i - 2)]) * x[wrap(i - 1)] - x[i] + F;
}

static void rk4(double *x, double F, double dt, double *k1, double *k2, double *k3, double *k4, double *y) {
    rhs(x, F, k1);
    for (int i = 0; i < N; i++)
        y[i] = x[i] + 0.5 * dt * k1[i];
    rhs(y, F, k2);
    for (int i = 0; i < N; i++)
        y[i] = x[i] + 0.5 * dt * k2[i];
    rhs(y, F, k3);
    for (int i = 0; i < N; i++)
        y[i] = x[i] + dt * k3[i];
    rhs(y, F, k4);
    for (int i = 0; i < N; i++)
        x[i] += dt / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
}

/* RK4 over `steps` steps of 0.5 / steps in one heap buffer (state and stages), 0.5 |x(T)|^2. */
double ode(const double *x0, double F, int steps) {
    double *w = malloc(sizeof(double) * 6 * N);
    double *x = w, *k1 = w + N, *k2 = w + 2 * N, *k3 = w + 3 * N, *k4 = w + 4 * N, *y = w + 5 * N;
    memcpy(x, x0, sizeof(double) * N);
    double dt = 0.5 / steps;
    for (int s = 0; s < steps; s++)
        rk4(x, F, dt, k1, k2, k3, k4, y);
    double J = 0.0;
    for (int i = 0; i < N; i++)
        J += 0.5 * x[i] * x[i];
    free(w);
    return J;
}
#endif
