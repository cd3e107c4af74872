#include "zyg_memref.h"
double f(double x, double y);
zyg_grad2 grad_f(double x, double y);

int main(void) {
    double xs[] = {0.4, -1.3, 2.2}, ys[] = {0.9, 0.2, -0.6};
    for (int i = 0; i < 3; i++)
        CHECK_FD2(f, xs[i], ys[i], grad_f(xs[i], ys[i]));
    return zyg_report();
}
