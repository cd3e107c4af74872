#include "zyg_memref.h"
double horner(double x);
double dhorner(double x);

int main(void) {
    double xs[] = {0.3, -1.1, 1.7, 2.4};
    for (int i = 0; i < 4; i++)
        check_close("d horner", dhorner(xs[i]), FD1(horner, xs[i]), FD_RTOL, FD_ATOL);
    return zyg_report();
}
