/* Driver of call_request_helpers.mlir: the request's gradient against finite differences
 * and the closed form, with y's shadow zero and seeded; forward mode against the gradient. */
#include <math.h>
#include "zyg_memref.h"
#define VIEW double *, double *, int64_t, int64_t, int64_t

double model(VIEW, VIEW, double k);
double grad_model(VIEW, VIEW, VIEW, VIEW, double k);
double tangent_model(VIEW, VIEW, VIEW, VIEW, double k, double tk);
double grad_scale(VIEW, VIEW, VIEW, VIEW, double k);
void tangent_scale(VIEW, VIEW, VIEW, VIEW, double k, double tk);

enum { N = 4 };
static double x[N], y[N], k;
static double loss(void) { return model(ARGS1(x, N), ARGS1(y, N), k); }

int main(void) {
    const double k_at[] = {0.8, -1.7, 2.4};
    for (int t = 0; t < 3; t++) {
        for (int i = 0; i < N; i++) x[i] = 0.4 * i - 0.7 + 0.3 * t, y[i] = 5.0;
        k = k_at[t];
        /* y's shadow zero: the gradient of the returned value alone. */
        double dx[N] = {0}, dy[N] = {0};
        double dk = grad_model(ARGS1(x, N), ARGS1(dx, N), ARGS1(y, N), ARGS1(dy, N), k);
        for (int i = 0; i < N; i++) {
            check_close("y", y[i], k * x[i], EXACT_RTOL, EXACT_ATOL);
            check_close("dy zeroed", dy[i], 0.0, EXACT_RTOL, EXACT_ATOL);
        }
        check_close("dk", dk, fd_at(loss, &k), FD_RTOL, FD_ATOL);
        check_array("dx", dx, loss, x, N);
        /* Seeded y (y = k x): the seeds add seed_i k to dx_i and sum seed_i x_i to dk. */
        double dx2[N] = {0}, seed[N], dy2[N];
        for (int i = 0; i < N; i++) seed[i] = dy2[i] = 0.5 * i - 0.6;
        double dk2 = grad_model(ARGS1(x, N), ARGS1(dx2, N), ARGS1(y, N), ARGS1(dy2, N), k);
        double want_dk2 = dk;
        for (int i = 0; i < N; i++) {
            check_close("dx seeded", dx2[i], dx[i] + seed[i] * k, EXACT_RTOL, 1e-12);
            want_dk2 += seed[i] * x[i];
        }
        check_close("dk seeded", dk2, want_dk2, EXACT_RTOL, 1e-12);
        /* Forward mode along (tx, tk): the gradient's dot product with the direction. */
        double tx[N], ty[N] = {0}, tk = 0.3 + 0.2 * t, want = dk * tk;
        for (int i = 0; i < N; i++) tx[i] = 0.1 * i + 0.2, want += dx[i] * tx[i];
        double got = tangent_model(ARGS1(x, N), ARGS1(tx, N), ARGS1(y, N), ARGS1(ty, N), k, tk);
        check_close("tangent", got, want, 1e-12, 1e-12);
        for (int i = 0; i < N; i++) check_close("ty = tangent of k x", ty[i], tk * x[i] + k * tx[i], EXACT_RTOL, EXACT_ATOL);

        /* scale_into alone (y = k x, no result): seeds in y's shadow, zeroed after. */
        double dx3[N] = {0}, dy3[N], want_dk3 = 0;
        for (int i = 0; i < N; i++) dy3[i] = seed[i], want_dk3 += seed[i] * x[i];
        check_close("scale dk", grad_scale(ARGS1(x, N), ARGS1(dx3, N), ARGS1(y, N), ARGS1(dy3, N), k), want_dk3, EXACT_RTOL, 1e-12);
        for (int i = 0; i < N; i++) {
            check_close("scale dx", dx3[i], seed[i] * k, EXACT_RTOL, EXACT_ATOL);
            check_close("scale dy zeroed", dy3[i], 0.0, EXACT_RTOL, EXACT_ATOL);
        }
        double ty3[N] = {0};
        tangent_scale(ARGS1(x, N), ARGS1(tx, N), ARGS1(y, N), ARGS1(ty3, N), k, tk);
        for (int i = 0; i < N; i++) check_close("scale ty", ty3[i], tk * x[i] + k * tx[i], EXACT_RTOL, EXACT_ATOL);
    }
    return zyg_report();
}
