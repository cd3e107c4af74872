#include "zyg_memref.h"
double recur(double x, double y, int64_t n);
zyg_grad2 drecur(double x, double y, int64_t n);
double oscillate(double k, double damp, int32_t steps);
zyg_grad2 doscillate(double k, double damp, int32_t steps);

static int64_t N;
static double recur_n(double x, double y) { return recur(x, y, N); }
static double osc_n(double k, double d) { return oscillate(k, d, (int32_t)N); }

int main(void) {
    double xs[] = {0.3, -0.8, 1.1}, ys[] = {0.9, 0.4, -0.6};
    int64_t ns[] = {0, 1, 7, 30};
    for (int k = 0; k < 4; k++)
        for (int i = 0; i < 3; i++) {
            N = ns[k];
            CHECK_FD2(recur_n, xs[i], ys[i], drecur(xs[i], ys[i], N));
            N = 3 * ns[k] + 1;
            CHECK_FD2(osc_n, 2.0 + xs[i], 0.5 + ys[i], doscillate(2.0 + xs[i], 0.5 + ys[i], (int32_t)N));
        }
    return zyg_report();
}
