#include "zyg_memref.h"
double f_asinh(double, double); zyg_grad2 d_asinh(double, double);
double f_acosh(double, double); zyg_grad2 d_acosh(double, double);
double f_atanh(double, double); zyg_grad2 d_atanh(double, double);
double f_atanh32(double, double); zyg_grad2 d_atanh32(double, double);

int main(void) {
    double xs[] = {0.35, 1.6, -2.5}, ys[] = {0.5, 1.2, -0.8};
    for (int i = 0; i < 3; i++) {
        double x = xs[i], y = ys[i], p = x * y;
        zyg_grad2 g = d_asinh(x, y);
        double s = 1 / sqrt(p * p + 1);
        check_close("asinh df/dx", g.d0, y * s, 1e-14, 0);
        check_close("asinh df/dy", g.d1, x * s, 1e-14, 0);
        /* acosh on x * y + ... > 1: scale the point into its domain */
        double ax = fabs(x) + 1.1, ay = fabs(y) + 1, q = ax * ay;
        g = d_acosh(ax, ay);
        check_close("acosh df/dx", g.d0, ay / sqrt(q * q - 1), 1e-14, 0);
        check_close("acosh df/dy", g.d1, ax / sqrt(q * q - 1), 1e-14, 0);
        double tx = x / 4, r = tx * y;
        g = d_atanh(tx, y);
        check_close("atanh df/dx", g.d0, y / (1 - r * r), 1e-14, 0);
        check_close("atanh df/dy", g.d1, tx / (1 - r * r), 1e-14, 0);
        zyg_grad2 gf = d_atanh32(tx, y);
        check_close("atanh f32 df/dx", gf.d0, y / (1 - r * r), 1e-6, 0);
        check_close("atanh f32 df/dy", gf.d1, tx / (1 - r * r), 1e-6, 0);
        check_close("atanh f32 value", f_atanh32((float)tx, (float)y), atanh(r), 1e-6, 0);
        check_close("asinh value", f_asinh(x, y), asinh(p), 1e-15, 0);
    }
    return zyg_report();
}
