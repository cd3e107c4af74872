#include "zyg_memref.h"
double f(double x, double y);
zyg_grad2 df(double x, double y);

int main(void) {
    double xs[] = {1.3, -0.7, 2.5, 0.4}, ys[] = {0.9, 1.7, -2.2, 3.1};
    for (int i = 0; i < 4; i++)
        CHECK_FD2(f, xs[i], ys[i], df(xs[i], ys[i]));
    return zyg_report();
}
