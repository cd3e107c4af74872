#include "zyg_memref.h"
#define N 7
double prefix(double *, double *, int64_t, int64_t, int64_t, double s);
double dprefix(double *, double *, int64_t, int64_t, int64_t, double *, double *, int64_t, int64_t, int64_t, double s);

static double x[N] = {0.3, -0.2, 0.5, 0.1, -0.4, 0.6, 0.25}, s = 0.7;
static double loss(void) { return prefix(ARGS1(x, N), s); }

int main(void) {
    for (int rep = 0; rep < 2; rep++) {  /* twice: the gradient frees and reuses its shadows */
        double dx[N] = {0};
        double ds = dprefix(ARGS1(x, N), ARGS1(dx, N), s);
        check_close("ds", ds, fd_at(loss, &s), FD_RTOL, FD_ATOL);
        check_array("dx", dx, loss, x, N);
        s = -0.4;
    }
    return zyg_report();
}
