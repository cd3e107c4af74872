#include "zyg_memref.h"
#define N 5
#define ONE double *, double *, int64_t, int64_t, int64_t
void softmax(ONE, ONE);
void dsoftmax(ONE, ONE, ONE, ONE);
double xent(ONE, double t, int64_t target);
double dxent(ONE, ONE, double t, int64_t target);

static double z[N] = {0.3, -1.2, 2.1, 0.8, -0.1}, w[N] = {0.5, -1.0, 2.0, 0.25, -0.75}, t = 1.3;
static int64_t target;
static double weighted(void) {
    double p[N];
    softmax(ARGS1(z, N), ARGS1(p, N));
    double l = 0;
    for (int i = 0; i < N; i++)
        l += w[i] * p[i];
    return l;
}
static double loss(void) { return xent(ARGS1(z, N), t, target); }

int main(void) {
    double p[N], dz[N] = {0}, dp[N];
    memcpy(dp, w, sizeof dp);
    dsoftmax(ARGS1(z, N), ARGS1(dz, N), ARGS1(p, N), ARGS1(dp, N));
    double total = 0;
    for (int i = 0; i < N; i++)
        total += p[i];
    check_close("sum p", total, 1.0, 1e-15, 0);
    check_array("dz softmax", dz, weighted, z, N);
    for (target = 0; target < N; target += 2) {
        memset(dz, 0, sizeof dz);
        double dt = dxent(ARGS1(z, N), ARGS1(dz, N), t, target);
        check_close("dt", dt, fd_at(loss, &t), FD_RTOL, FD_ATOL);
        check_array("dz xent", dz, loss, z, N);
    }
    return zyg_report();
}
