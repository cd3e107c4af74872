#include "zyg_memref.h"
double newton_sqrt(double a);
double dnewton_sqrt(double a);
double halve(double x, double y);
zyg_grad2 dhalve(double x, double y);

int main(void) {
    double as[] = {0.25, 2.0, 9.0, 150.0};
    for (int i = 0; i < 4; i++) {
        check_close("sqrt", newton_sqrt(as[i]), sqrt(as[i]), 1e-12, 0);
        check_close("d sqrt", dnewton_sqrt(as[i]), 0.5 / sqrt(as[i]), 1e-9, 0);
    }
    double xs[] = {0.3, 1.7, 5.3, 77.0}, ys[] = {1.2, -0.4, 2.5, 0.6};
    for (int i = 0; i < 4; i++)
        CHECK_FD2(halve, xs[i], ys[i], dhalve(xs[i], ys[i]));
    return zyg_report();
}
