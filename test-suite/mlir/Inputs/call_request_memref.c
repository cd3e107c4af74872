/* Driver of call_request_memref.mlir: each MLIR function holding a request, called with
 * the lowering's convention (each memref as allocated, aligned, offset, size, stride),
 * against closed forms and central finite differences at several inputs. */
#include <math.h>
#include "zyg_memref.h"
#define VIEW double *, double *, int64_t, int64_t, int64_t

double wloss(VIEW, double x, int64_t n);
double dot(VIEW, VIEW);
double grad_wloss(VIEW, VIEW, double x, int64_t n);
void grad_wloss_w(VIEW, VIEW, double x, int64_t n);
double grad_wloss_x(VIEW, double x, int64_t n);
double tangent_wloss(VIEW, VIEW, double x, double tx, int64_t n);
double tangent_wloss_x(VIEW, double x, double tx, int64_t n);
double grad_wloss_sum(VIEW, VIEW, VIEW, int64_t n);
void grad_dot(VIEW, VIEW, VIEW, VIEW);
void grad_dot_a(VIEW, VIEW, VIEW);
double grad_poly_y(double x, double y);
double tangent_poly_x(double x, double tx, double y);

enum { N = 5 };
static double w[N], x, xs[3];
static int64_t n;
static double b[N];
static double loss(void) { return wloss(ARGS1(w, N), x, n); }
static double loss_sum(void) {
    double s = 0;
    for (int k = 0; k < 3; k++) s += wloss(ARGS1(w, N), xs[k], n);
    return s;
}
static double dot_loss(void) { return dot(ARGS1(w, N), ARGS1(b, N)); }

int main(void) {
    const double x_at[] = {0.7, -1.3, 2.1};
    const int64_t n_at[] = {0, 3, 5};
    for (int t = 0; t < 3; t++) {
        for (int i = 0; i < N; i++) w[i] = 0.3 * i - 0.5 + 0.1 * t, b[i] = 1.0 - 0.4 * i + 0.2 * t;
        x = x_at[t], n = n_at[t];
        /* Closed form: d/dw[i] = cos(w x) x + 2 w x (i < n), d/dx = sum cos(w x) w + w^2. */
        double want_dx = 0, want_dw[N] = {0};
        for (int i = 0; i < n; i++) {
            want_dw[i] = cos(w[i] * x) * x + 2 * w[i] * x;
            want_dx += cos(w[i] * x) * w[i] + w[i] * w[i];
        }
        double dw[N];
        for (int i = 0; i < N; i++) dw[i] = 1.0; /* shadows accumulate: += */
        double dx = grad_wloss(ARGS1(w, N), ARGS1(dw, N), x, n);
        check_close("grad_wloss dx", dx, want_dx, EXACT_RTOL, EXACT_ATOL);
        check_close("grad_wloss dx fd", dx, fd_at(loss, &x), FD_RTOL, FD_ATOL);
        for (int i = 0; i < N; i++) {
            check_close("grad_wloss dw", dw[i], 1.0 + want_dw[i], EXACT_RTOL, EXACT_ATOL);
            dw[i] -= 1.0;
        }
        check_array("grad_wloss dw fd", dw, loss, w, N);

        memset(dw, 0, sizeof dw);
        grad_wloss_w(ARGS1(w, N), ARGS1(dw, N), x, n);
        for (int i = 0; i < N; i++) check_close("grad_wloss_w dw", dw[i], want_dw[i], EXACT_RTOL, EXACT_ATOL);
        check_close("grad_wloss_x dx", grad_wloss_x(ARGS1(w, N), x, n), want_dx, EXACT_RTOL, EXACT_ATOL);

        /* Forward mode along (tw, tx): the gradient's dot product with the direction. */
        double tw[N], tx = 0.6 - 0.5 * t, want_t = want_dx * tx;
        for (int i = 0; i < N; i++) tw[i] = 0.2 * i - 0.3, want_t += want_dw[i] * tw[i];
        check_close("tangent_wloss", tangent_wloss(ARGS1(w, N), ARGS1(tw, N), x, tx, n), want_t, EXACT_RTOL, EXACT_ATOL);
        check_close("tangent_wloss_x", tangent_wloss_x(ARGS1(w, N), x, tx, n), want_dx * tx, EXACT_RTOL, EXACT_ATOL);

        /* Requests in a loop, accumulating into one shadow. */
        for (int k = 0; k < 3; k++) xs[k] = x + 0.25 * k;
        memset(dw, 0, sizeof dw);
        double dxs = grad_wloss_sum(ARGS1(w, N), ARGS1(dw, N), ARGS1(xs, 3), n);
        check_array("grad_wloss_sum dw", dw, loss_sum, w, N);
        double want_dxs = 0;
        for (int k = 0; k < 3; k++) {
            double g = fd_at(loss_sum, &xs[k]);
            want_dxs += g;
        }
        check_close("grad_wloss_sum dx", dxs, want_dxs, FD_RTOL, FD_ATOL);

        /* dot: d/da = b, d/db = a. */
        double da[N] = {0}, db[N] = {0};
        grad_dot(ARGS1(w, N), ARGS1(da, N), ARGS1(b, N), ARGS1(db, N));
        for (int i = 0; i < N; i++) {
            check_close("grad_dot da", da[i], b[i], EXACT_RTOL, EXACT_ATOL);
            check_close("grad_dot db", db[i], w[i], EXACT_RTOL, EXACT_ATOL);
        }
        check_array("grad_dot da fd", da, dot_loss, w, N);
        memset(da, 0, sizeof da);
        grad_dot_a(ARGS1(w, N), ARGS1(da, N), ARGS1(b, N));
        for (int i = 0; i < N; i++) check_close("grad_dot_a da", da[i], b[i], EXACT_RTOL, EXACT_ATOL);

        /* Scalars with zyg.args: d/dy = 2 x y; along x, (y^2 + cos x) tx. */
        double y = 0.5 - 0.8 * t;
        check_close("grad_poly_y", grad_poly_y(x, y), 2 * x * y, EXACT_RTOL, EXACT_ATOL);
        check_close("tangent_poly_x", tangent_poly_x(x, 0.3, y), (y * y + cos(x)) * 0.3, EXACT_RTOL, EXACT_ATOL);
    }
    return zyg_report();
}
