#include "zyg_memref.h"
#define N 7
double gather(double *, double *, int64_t, int64_t, int64_t, double x);
double dgather(double *, double *, int64_t, int64_t, int64_t, double *, double *, int64_t, int64_t, int64_t, double x);

static double a[N] = {0.3, -0.6, 0.2, 0.9, -0.1, 0.45, 0.7}, x = 0.35;
static double loss(void) { return gather(ARGS1(a, N), x); }

int main(void) {
    double da[N] = {0};
    double dx = dgather(ARGS1(a, N), ARGS1(da, N), x);
    check_close("dx", dx, fd_at(loss, &x), FD_RTOL, FD_ATOL);
    check_array("da", da, loss, a, N);
    return zyg_report();
}
