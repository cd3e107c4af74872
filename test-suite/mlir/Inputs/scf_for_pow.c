#include "zyg_memref.h"
double power(double x, int64_t n);
double dpower(double x, int64_t n);

int main(void) {
    double xs[] = {1.1, -0.9, 2.0};
    int64_t ns[] = {0, 1, 5, 40};
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 4; k++) {
            double want = ns[k] == 0 ? 0.0 : ns[k] * pow(xs[i], ns[k] - 1);
            check_close("d x^n", dpower(xs[i], ns[k]), want, 1e-12, 1e-14);
        }
    return zyg_report();
}
