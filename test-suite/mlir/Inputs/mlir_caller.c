#include "zyg_memref.h"
#define N 4
#define ONE double *, double *, int64_t, int64_t, int64_t
double rosen(ONE);
void gradient(ONE, ONE);
double descend(ONE, int64_t steps, double lr);

static double x[N] = {-0.5, 0.8, 1.2, 0.3};
static double loss(void) { return rosen(ARGS1(x, N)); }

int main(void) {
    double g[N] = {7, 7, 7, 7};  /* gradient() zeroes it */
    gradient(ARGS1(x, N), ARGS1(g, N));
    check_array("g", g, loss, x, N);
    double before = loss();
    double after = descend(ARGS1(x, N), 200, 1e-3);
    check_close("descends", after < before ? 1 : 0, 1, 0, 0);
    check_close("value after", after, loss(), 0, 0);
    return zyg_report();
}
