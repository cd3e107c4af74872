#include "zyg_memref.h"
#define N 4
double norm2(double *, double *, int64_t, int64_t, int64_t);
void dnorm2(double *, double *, int64_t, int64_t, int64_t, double *, double *, int64_t, int64_t, int64_t);

static double a[N] = {0.5, -1.5, 2.0, 0.25};
static double loss(void) { return norm2(ARGS1(a, N)); }

int main(void) {
    double da[N] = {0};
    dnorm2(ARGS1(a, N), ARGS1(da, N));
    check_array("da", da, loss, a, N);
    return zyg_report();
}
