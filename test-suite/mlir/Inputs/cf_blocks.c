#include "zyg_memref.h"
double texp(double x, double y);
zyg_grad2 dtexp(double x, double y);
double choose(double x, int32_t which);
double dchoose(double x, int32_t which);

int main(void) {
    double xs[] = {0.5, -1.3, 2.2}, ys[] = {1.5, 0.3, -0.7};
    for (int i = 0; i < 3; i++) {
        zyg_grad2 g = dtexp(xs[i], ys[i]);
        check_close("d/dx", g.d0, exp(xs[i]) * ys[i], 1e-12, 1e-14);
        check_close("d/dy", g.d1, exp(xs[i]), 1e-12, 1e-14);
        check_close("square", dchoose(xs[i], 0), 2 * xs[i], 1e-15, 0);
        check_close("cube", dchoose(xs[i], 1), 3 * xs[i] * xs[i], 1e-15, 0);
        check_close("exp", dchoose(xs[i], 7), exp(xs[i]), 1e-15, 0);
    }
    return zyg_report();
}
