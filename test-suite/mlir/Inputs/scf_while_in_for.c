#include "zyg_memref.h"
#define N 4
#define ONE double *, double *, int64_t, int64_t, int64_t
void fixed_points(ONE, ONE, double s);
double dfixed_points(ONE, ONE, ONE, ONE, double s);

static double a[N] = {0.3, 0.6, 0.45, 0.8}, w[N] = {1.0, -0.5, 2.0, 0.75}, s = 0.2;
static double loss(void) {
    double out[N];
    fixed_points(ARGS1(a, N), ARGS1(out, N), s);
    double l = 0;
    for (int i = 0; i < N; i++)
        l += w[i] * out[i];
    return l;
}

int main(void) {
    double out[N], da[N] = {0}, dout[N];
    memcpy(dout, w, sizeof dout);
    double ds = dfixed_points(ARGS1(a, N), ARGS1(da, N), ARGS1(out, N), ARGS1(dout, N), s);
    for (int i = 0; i < N; i++)
        check_close("fixed point", out[i], cos(a[i] * out[i]) + s, 1e-14, 1e-14);
    check_close("ds", ds, fd_at(loss, &s), 1e-5, 1e-7);
    check_array("da", da, loss, a, N);
    return zyg_report();
}
