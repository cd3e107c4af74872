#include "zyg_memref.h"
double f(double x, double y);
zyg_grad2 df(double x, double y);
void g(double *, double *, int64_t, int64_t, int64_t, double x, double y);
zyg_grad2 dg(double *, double *, int64_t, int64_t, int64_t, double *, double *, int64_t, int64_t, int64_t, double x,
             double y);

static double g_value(double x, double y) {
    double out[1];
    g(ARGS1(out, 1), x, y);
    return out[0];
}

int main(void) {
    double xs[] = {0.8, 1.5, -0.6, 2.0}, ys[] = {1.9, 0.7, 1.1, -0.5};
    for (int i = 0; i < 4; i++) {
        CHECK_FD2(f, xs[i], ys[i], df(xs[i], ys[i]));
        double out[1], seed[1] = {2.0};
        zyg_grad2 d = dg(ARGS1(out, 1), ARGS1(seed, 1), xs[i], ys[i]);
        check_close("out", out[0], g_value(xs[i], ys[i]), EXACT_RTOL, EXACT_ATOL);
        check_close("seed consumed", seed[0], 0.0, 0, 0);
        d.d0 /= 2, d.d1 /= 2;
        CHECK_FD2(g_value, xs[i], ys[i], d);
    }
    return zyg_report();
}
