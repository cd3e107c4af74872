/* Driver of call_request_f32_2d.mlir: f32 memrefs against closed forms (float tolerance)
 * and finite differences in double; a 2-D memref (a row-major 3x3 view) against closed
 * forms and finite differences. */
#include <math.h>
#include "zyg_memref.h"
#define VIEWF float *, float *, int64_t, int64_t, int64_t
#define VIEW double *, double *, int64_t, int64_t, int64_t
#define VIEW2 double *, double *, int64_t, int64_t, int64_t, int64_t, int64_t
#define ARGSF(p, n) (p), (p), (int64_t)0, (int64_t)(n), (int64_t)1

float f32loss(VIEWF, float x, float y);
void grad_f32loss(VIEWF, VIEWF, float x, float y, VIEWF);
float tangent_f32loss(VIEWF, VIEWF, float x, float tx, float y, float ty);
double quad(VIEW2, VIEW, double s, double a, double b);
void grad_quad(VIEW2, VIEW2, VIEW, VIEW, double s, double a, double b, VIEW);
zyg_grad2 grad_quad_ab(VIEW2, VIEW, double s, double a, double b);
double tangent_quad(VIEW2, VIEW2, VIEW, double s, double ts, double a, double b);

enum { N = 4, R = 3 };
static float wf[N];
static double A[R * R], v[R], s, a, b;
static double qloss(void) { return quad(ARGS2(A, R, R), ARGS1(v, R), s, a, b); }

/* f32loss in double, for its finite differences. */
static double f32loss_d(const double *w, double x, double y) {
    double r = 0;
    for (int i = 0; i < N; i++) r += w[i] * w[i] * x + w[i] * y * y;
    return r;
}

int main(void) {
    const double at[] = {0.6, -1.1, 1.9};
    for (int t = 0; t < 3; t++) {
        /* f32 */
        float x = (float)at[t], y = (float)(0.5 - at[t]);
        for (int i = 0; i < N; i++) wf[i] = (float)(0.3 * i - 0.4 + 0.1 * t);
        float dw[N] = {0}, out[2];
        grad_f32loss(ARGSF(wf, N), ARGSF(dw, N), x, y, ARGSF(out, 2));
        double want_dx = 0, want_dy = 0, wd[N];
        for (int i = 0; i < N; i++) {
            wd[i] = wf[i];
            want_dx += (double)wf[i] * wf[i];
            want_dy += 2.0 * wf[i] * y;
            check_close("f32 dw", dw[i], 2.0 * wf[i] * x + (double)y * y, FLOAT_RTOL, FLOAT_ATOL);
            double h = 1e-6, up, down;
            wd[i] += h, up = f32loss_d(wd, x, y), wd[i] -= 2 * h, down = f32loss_d(wd, x, y), wd[i] += h;
            check_close("f32 dw fd", dw[i], (up - down) / (2 * h), FLOAT_RTOL, FLOAT_ATOL);
        }
        check_close("f32 dx", out[0], want_dx, FLOAT_RTOL, FLOAT_ATOL);
        check_close("f32 dy", out[1], want_dy, FLOAT_RTOL, FLOAT_ATOL);
        check_close("f32 primal", f32loss(ARGSF(wf, N), x, y), f32loss_d(wd, x, y), FLOAT_RTOL, FLOAT_ATOL);
        float tw[N], tx = 0.25f, ty = -0.5f;
        double want_t = want_dx * tx + want_dy * ty;
        for (int i = 0; i < N; i++) tw[i] = (float)(0.1 * i - 0.2), want_t += (double)dw[i] * tw[i];
        check_close("f32 tangent", tangent_f32loss(ARGSF(wf, N), ARGSF(tw, N), x, tx, y, ty), want_t, FLOAT_RTOL, FLOAT_ATOL);

        /* 2-D */
        for (int i = 0; i < R * R; i++) A[i] = 0.2 * i - 0.7 + 0.15 * t;
        for (int i = 0; i < R; i++) v[i] = 0.5 - 0.3 * i + 0.1 * t;
        s = at[t], a = 0.4 + 0.2 * t, b = -0.3 + at[t];
        double dA[R * R] = {0}, dv[R] = {0}, d3[3];
        grad_quad(ARGS2(A, R, R), ARGS2(dA, R, R), ARGS1(v, R), ARGS1(dv, R), s, a, b, ARGS1(d3, 3));
        double vav = 0, sins = 0;
        for (int i = 0; i < R; i++)
            for (int j = 0; j < R; j++) {
                vav += v[i] * A[i * R + j] * v[j], sins += sin(A[i * R + j]);
                check_close("dA", dA[i * R + j], s * v[i] * v[j] + a * cos(A[i * R + j]), EXACT_RTOL, EXACT_ATOL);
            }
        for (int i = 0; i < R; i++) {
            double want = 0;
            for (int j = 0; j < R; j++) want += s * (A[i * R + j] + A[j * R + i]) * v[j];
            check_close("dv", dv[i], want, EXACT_RTOL, EXACT_ATOL);
        }
        check_array("dA fd", dA, qloss, A, R * R);
        check_array("dv fd", dv, qloss, v, R);
        check_close("ds", d3[0], vav, EXACT_RTOL, EXACT_ATOL);
        check_close("da", d3[1], sins, EXACT_RTOL, EXACT_ATOL);
        check_close("db", d3[2], 2 * b, EXACT_RTOL, EXACT_ATOL);
        check_close("ds fd", d3[0], fd_at(qloss, &s), FD_RTOL, FD_ATOL);
        zyg_grad2 ab = grad_quad_ab(ARGS2(A, R, R), ARGS1(v, R), s, a, b);
        check_close("quad_ab da", ab.d0, sins, EXACT_RTOL, EXACT_ATOL);
        check_close("quad_ab db", ab.d1, 2 * b, EXACT_RTOL, EXACT_ATOL);
        double tA[R * R], ts = 0.7 - 0.3 * t, want_t2 = d3[0] * ts;
        for (int i = 0; i < R * R; i++) tA[i] = 0.05 * i - 0.2, want_t2 += dA[i] * tA[i];
        check_close("quad tangent", tangent_quad(ARGS2(A, R, R), ARGS2(tA, R, R), ARGS1(v, R), s, ts, a, b), want_t2, 1e-12, 1e-12);
    }
    return zyg_report();
}
