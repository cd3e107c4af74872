/* Driver of gather_intrinsics.ll: gradients of its gathers and scatters against central
 * finite differences of the same functions, and against the derivatives worked out by
 * hand (duplicate lanes, masked-off lanes, passthru lanes, the last store winning). */
#include "zyg_check.h"
#include <string.h>

double gather_splat(double *x, double *w, const int *m);
double gather_indexed(double *x, const long *idx, const int *m);
float gather_float8(float *x, const int *idx);
void scatter_indexed(double *y, double *x, const long *idx, const int *m);
void scatter_splat(double *y, double *x, const int *m);
double gather_loop(double *x, double *y, long n, int which);
double reduce_fmul(double *x);

static const int MASKS[4][4] = {{1, 0, 1, 1}, {0, 0, 0, 0}, {1, 1, 1, 1}, {0, 1, 0, 0}};

/* Contexts for check_array_fd: the function of one array, the others fixed. */
struct splat_ctx { double *other; const int *m; int vary_w; };
static double splat_of(const double *a, void *p) {
    struct splat_ctx *c = p;
    double x[4], w[4];
    memcpy(c->vary_w ? w : x, a, sizeof x);
    memcpy(c->vary_w ? x : w, c->other, sizeof x);
    return gather_splat(x, w, c->m);
}

static void check_gather_splat(void) {
    for (int k = 0; k < 4; k++) {
        double x[4] = {0.5, -1.25, 2.0, 0.75}, w[4] = {1.5, -0.5, 0.25, 3.0};
        double dx[4] = {0}, dw[4] = {0};
        const int *m = MASKS[k];
        __enzyme_autodiff((void *)gather_splat, enzyme_dup, x, dx, enzyme_dup, w, dw, enzyme_const, m);
        int on = 0;
        for (int i = 0; i < 4; i++)
            on += m[i] != 0;
        /* Every lane on reads x[1]: each adds its 2 x[1]. Lanes off pass w through. */
        check_close("splat dx[1]", dx[1], 2 * on * x[1], EXACT_RTOL, EXACT_ATOL);
        for (int i = 0; i < 4; i++)
            check_close("splat dw", dw[i], m[i] ? 0.0 : 2 * w[i], EXACT_RTOL, EXACT_ATOL);
        struct splat_ctx cx = {w, m, 0}, cw = {x, m, 1};
        check_array_fd("splat dx fd", splat_of, &cx, x, 4, dx);
        check_array_fd("splat dw fd", splat_of, &cw, w, 4, dw);
    }
}

struct indexed_ctx { const long *idx; const int *m; };
static double indexed_of(const double *a, void *p) {
    struct indexed_ctx *c = p;
    double x[4];
    memcpy(x, a, sizeof x);
    return gather_indexed(x, c->idx, c->m);
}

static void check_gather_indexed(void) {
    const long idx[4] = {2, 0, 2, 2};
    for (int k = 0; k < 4; k++) {
        double x[4] = {0.5, -1.25, 2.0, 0.75}, dx[4] = {0};
        const int *m = MASKS[k];
        __enzyme_autodiff((void *)gather_indexed, enzyme_dup, x, dx, enzyme_const, idx, enzyme_const, m);
        double want[4] = {0};
        for (int i = 0; i < 4; i++)
            if (m[i])
                want[idx[i]] += 2 * (i + 1) * x[idx[i]];
        for (int j = 0; j < 4; j++)
            check_close("indexed dx", dx[j], want[j], EXACT_RTOL, EXACT_ATOL);
        struct indexed_ctx c = {idx, m};
        check_array_fd("indexed dx fd", indexed_of, &c, x, 4, dx);
    }
}

static void check_gather_float8(void) {
    const int idx[8] = {0, 3, 3, 1, 5, 3, 0, 7};
    float x[8] = {0.5f, -1.25f, 2.0f, 0.75f, 1.5f, -0.5f, 0.25f, 1.0f}, dx[8] = {0};
    __enzyme_autodiff((void *)gather_float8, enzyme_dup, x, dx, enzyme_const, idx);
    double want[8] = {0};
    for (int i = 0; i < 8; i++)
        want[idx[i]] += 3.0 * x[idx[i]] * x[idx[i]];
    for (int j = 0; j < 8; j++)
        check_close("float8 dx", dx[j], want[j], 1e-6, 1e-6);
}

/* L = sum seed[j] * y_after[j], the scatter run on a copy of y0. */
struct scatter_ctx { const double *y0; const double *x; const long *idx; const int *m; int vary_y; };
static const double SEED[6] = {1.5, -2.0, 0.75, 3.0, -0.25, 2.5};
static double scatter_of(const double *a, void *p) {
    struct scatter_ctx *c = p;
    double y[6], x[4];
    memcpy(y, c->vary_y ? a : c->y0, sizeof y);
    memcpy(x, c->vary_y ? c->x : a, sizeof x);
    if (c->idx)
        scatter_indexed(y, x, c->idx, c->m);
    else
        scatter_splat(y, x, c->m);
    double s = 0;
    for (int j = 0; j < 6; j++)
        s += SEED[j] * y[j];
    return s;
}

static void check_scatters(void) {
    const long idx[4] = {1, 3, 1, 4};
    const int masks[3][4] = {{1, 1, 1, 1}, {1, 1, 0, 1}, {0, 0, 0, 0}};
    for (int k = 0; k < 3; k++) {
        const int *m = masks[k];
        const double y0[6] = {0.1, 0.2, 0.3, 0.4, 0.5, 0.6};
        double x[4] = {0.5, -1.25, 2.0, 0.75}, y[6], dy[6], dx[4] = {0};
        memcpy(y, y0, sizeof y);
        memcpy(dy, SEED, sizeof dy);
        __enzyme_autodiff((void *)scatter_indexed, enzyme_dup, y, dy, enzyme_dup, x, dx, enzyme_const, idx,
                          enzyme_const, m);
        /* Lane i's value stays where no later lane on writes the same element. */
        int written[6] = {0};
        for (int i = 0; i < 4; i++) {
            int last = m[i];
            for (int j = i + 1; j < 4; j++)
                last &= !(m[j] && idx[j] == idx[i]);
            check_close("scatter dx", dx[i], last ? 2 * x[i] * SEED[idx[i]] : 0.0, EXACT_RTOL, EXACT_ATOL);
            if (m[i])
                written[idx[i]] = 1;
        }
        for (int j = 0; j < 6; j++)
            check_close("scatter dy", dy[j], written[j] ? 0.0 : SEED[j], EXACT_RTOL, EXACT_ATOL);
        struct scatter_ctx c = {y0, x, idx, m, 0};
        check_array_fd("scatter dx fd", scatter_of, &c, x, 4, dx);
    }
    for (int k = 0; k < 4; k++) {
        const int *m = MASKS[k];
        const double y0[6] = {0.1, 0.2, 0.3, 0.4, 0.5, 0.6};
        double x[4] = {0.5, -1.25, 2.0, 0.75}, y[6], dy[6], dx[4] = {0};
        memcpy(y, y0, sizeof y);
        memcpy(dy, SEED, sizeof dy);
        __enzyme_autodiff((void *)scatter_splat, enzyme_dup, y, dy, enzyme_dup, x, dx, enzyme_const, m);
        int last = -1;
        for (int i = 0; i < 4; i++)
            if (m[i])
                last = i;
        for (int i = 0; i < 4; i++)
            check_close("splat scatter dx", dx[i], i == last ? 3 * SEED[2] : 0.0, EXACT_RTOL, EXACT_ATOL);
        /* y[2] = 3 x[last] + y[2]: its adjoint goes through; untouched when no lane is on. */
        for (int j = 0; j < 6; j++)
            check_close("splat scatter dy", dy[j], SEED[j], EXACT_RTOL, EXACT_ATOL);
        struct scatter_ctx cx = {y0, x, NULL, m, 0}, cy = {y0, x, NULL, m, 1};
        check_array_fd("splat scatter dx fd", scatter_of, &cx, x, 4, dx);
        double dy_fd[6];
        memcpy(dy_fd, dy, sizeof dy_fd);
        check_array_fd("splat scatter dy fd", scatter_of, &cy, y0, 6, dy_fd);
    }
}

struct loop_ctx { double *y; int which; int vary_y; double *x; };
static double loop_of(const double *a, void *p) {
    struct loop_ctx *c = p;
    double x[14], y[1];
    memcpy(x, c->vary_y ? c->x : a, sizeof x);
    memcpy(y, c->vary_y ? a : c->y, sizeof y);
    return gather_loop(x, y, 3, c->which);
}

static void check_gather_loop(void) {
    for (int which = 0; which < 2; which++) {
        double x[14], y[1] = {1.75}, dx[14] = {0}, dy[1] = {0};
        for (int i = 0; i < 14; i++)
            x[i] = 0.25 * i - 1.5;
        __enzyme_autodiff((void *)gather_loop, enzyme_dup, x, dx, enzyme_dup, y, dy, enzyme_const, 3L,
                          enzyme_const, which);
        for (int i = 0; i < 14; i++) {
            double want = i < 12 ? 2 * x[i] : (i == 13 && !which ? 2 * x[13] : 0.0);
            check_close("loop dx", dx[i], want, EXACT_RTOL, EXACT_ATOL);
        }
        check_close("loop dy", dy[0], which ? 2 * y[0] : 0.0, EXACT_RTOL, EXACT_ATOL);
        struct loop_ctx cx = {y, which, 0, x}, cy = {y, which, 1, x};
        check_array_fd("loop dx fd", loop_of, &cx, x, 14, dx);
        check_array_fd("loop dy fd", loop_of, &cy, y, 1, dy);
    }
}

static double fmul_of(const double *a, void *p) {
    (void)p;
    double x[5];
    memcpy(x, a, sizeof x);
    return reduce_fmul(x);
}

static void check_reduce_fmul(void) {
    double cases[3][5] = {{1.5, 0.0, -2.0, 0.5, 3.0}, {1.5, 0.25, -2.0, 0.5, 3.0}, {0.0, 0.0, 1.0, 2.0, 3.0}};
    for (int k = 0; k < 3; k++) {
        double *x = cases[k], dx[5] = {0};
        __enzyme_autodiff((void *)reduce_fmul, enzyme_dup, x, dx);
        for (int i = 0; i < 5; i++) {
            double others = 1;
            for (int j = 0; j < 5; j++)
                if (j != i)
                    others *= x[j];
            check_close("fmul dx", dx[i], others, EXACT_RTOL, EXACT_ATOL);
        }
        check_array_fd("fmul dx fd", fmul_of, NULL, x, 5, dx);
    }
}

int main(void) {
    check_gather_splat();
    check_gather_indexed();
    check_gather_float8();
    check_scatters();
    check_gather_loop();
    check_reduce_fmul();
    return zyg_report();
}
