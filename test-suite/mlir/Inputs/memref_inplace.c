#include "zyg_memref.h"
#define N 6
void smooth(double *, double *, int64_t, int64_t, int64_t, double x, int64_t sweeps);
double dsmooth(double *, double *, int64_t, int64_t, int64_t, double *, double *, int64_t, int64_t, int64_t, double x,
               int64_t sweeps);

static double a0[N] = {0.4, -0.3, 1.1, 0.8, -0.9, 0.2}, w[N] = {1.0, -2.0, 0.5, 1.5, -0.7, 0.3}, x = 0.9;
/* loss = sum w_i a_i after smoothing a copy of a0 */
static double loss(void) {
    double a[N];
    memcpy(a, a0, sizeof a);
    smooth(ARGS1(a, N), x, 3);
    double l = 0;
    for (int i = 0; i < N; i++)
        l += w[i] * a[i];
    return l;
}

int main(void) {
    double a[N], da[N];
    memcpy(a, a0, sizeof a);
    memcpy(da, w, sizeof da);  /* the seed */
    double dx = dsmooth(ARGS1(a, N), ARGS1(da, N), x, 3);
    check_close("dx", dx, fd_at(loss, &x), FD_RTOL, FD_ATOL);
    check_array("da", da, loss, a0, N);
    return zyg_report();
}
