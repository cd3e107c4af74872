#include "zyg_memref.h"
#define N 5
double energy(double *, double *, int64_t, int64_t, int64_t, double k);
#ifdef ONLY_POINTS
/* --args dup,dup,const,const,const,const: no gradient for k */
void denergy_dp(void *, void *, void *, void *, int64_t, int64_t, int64_t, double);
#endif

static double p[N] = {0.0, 1.3, 2.1, 3.4, 4.2}, k = 2.5;
static double loss(void) { return energy(ARGS1(p, N), k); }

int main(void) {
    double dp[N] = {0};
#ifdef ONLY_POINTS
    denergy_dp(p, dp, p, dp, 0, N, 1, k);
#else
    double dk = energy_grad(p, dp, p, dp, 0, N, 1, k);
    check_close("dk", dk, fd_at(loss, &k), FD_RTOL, FD_ATOL);
#endif
    check_array("dp", dp, loss, p, N);
    return zyg_report();
}
