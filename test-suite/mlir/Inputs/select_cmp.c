#include "zyg_memref.h"
double huber(double r, double delta);
zyg_grad2 dhuber(double r, double delta);
double leaky_clamp(double x, double y);
zyg_grad2 dleaky_clamp(double x, double y);

int main(void) {
    double rs[] = {0.3, -0.4, 2.5, -3.0}, ds[] = {1.0, 0.5, 1.2, 0.8};
    for (int i = 0; i < 4; i++)
        CHECK_FD2(huber, rs[i], ds[i], dhuber(rs[i], ds[i]));
    /* away from kinks and from the steps of floor, ceil and round */
    double xs[] = {0.35, -0.6, 1.7, 3.2, -2.7}, ys[] = {0.8, 0.45, 1.1, 1.3, 1.4};
    for (int i = 0; i < 5; i++)
        CHECK_FD2(leaky_clamp, xs[i], ys[i], dleaky_clamp(xs[i], ys[i]));
    return zyg_report();
}
