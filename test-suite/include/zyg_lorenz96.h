/* Lorenz-96's right-hand side and one RK4 step, on N variables (define N before including):
 * the time-stepping loops of the loop-checkpointing tests step this state. `wrap` is the
 * periodic index. */
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
#endif
