// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// RUN: %grad-run -O3 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Reverse over reverse where the inner gradient has loops, so that its tape has stacks: the
// outer gradient of v . grad f(w) is H v. Checked against forward over reverse (the HVP recipe)
// and central differences of the gradient along v, for loops of a few records and of
// several tape chunks (5000 iterations), nested loops, a loop with a data-dependent exit
// (Newton's square root: its second derivative in closed form), heap scratch memory, a
// looping helper kept as a call (its tape copied into the caller's), the inner gradient
// called again and again in the outer function, two Hessian-vector products in one sweep
// (vector reverse mode of width 2 over the gradient), and third derivatives (forward over
// reverse over reverse) of loops, in closed form.
#include "zyg_check.h"
#include <stdlib.h>
#include <string.h>

extern int enzyme_width;

#define MAXN 5000

static double chain(const double *w, int n) {
    double s = 0;
    for (int i = 0; i < n; i++) s += sin(w[i]) * w[(i + 1) % n] + 0.5 * w[i] * w[i] * w[(i + 2) % n];
    return s;
}

static double nested(const double *w, int n) {
    double s = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j <= i; j++) s += tanh(0.3 * w[i] * w[j] + 0.1 * (i - j)) * w[j];
    return s;
}

static double heap(const double *w, int n) {
    double *t = malloc(sizeof(double) * n);
    for (int i = 0; i < n; i++) t[i] = exp(0.2 * w[i]) + w[(i + 1) % n];
    double s = 0;
    for (int i = n - 1; i >= 0; i--) s = s * 0.5 + t[i] * t[i] * w[i];
    free(t);
    return s;
}

__attribute__((noinline)) static double weighted(const double *a, const double *b, int n) {
    double s = 0;
    for (int i = 0; i < n; i++) s += cos(a[i]) * b[i] + a[i] * b[i] * b[i];
    return s;
}

static double helper(const double *w, int n) {
    int h = n / 2;
    double a = weighted(w, w + h, h), b = weighted(w + h, w, h);
    return a * b + log(1 + a * a);
}

typedef double (*fn_t)(const double *, int);
#define GRAD(name)                                                                               \
    static void name##_grad(const double *w, double *g, int n) {                                 \
        __enzyme_autodiff((void *)name, enzyme_dup, w, g, enzyme_const, n);                      \
    }                                                                                            \
    static double name##_vg(const double *w, const double *v, int n) {                           \
        double *g = calloc(n, sizeof(double));                                                   \
        name##_grad(w, g, n);                                                                    \
        double s = 0;                                                                            \
        for (int i = 0; i < n; i++) s += v[i] * g[i];                                            \
        free(g);                                                                                 \
        return s;                                                                                \
    }                                                                                            \
    static void name##_hv_rr(const double *w, const double *v, double *hv, int n) {              \
        __enzyme_autodiff((void *)name##_vg, enzyme_dup, w, hv, enzyme_const, v, enzyme_const, n); \
    }                                                                                            \
    static void name##_hv_fr(const double *w, const double *v, double *g, double *hv, int n) {   \
        __enzyme_fwddiff((void *)name##_grad, enzyme_dup, w, v, enzyme_dup, g, hv, enzyme_const, n); \
    }
GRAD(chain)
GRAD(nested)
GRAD(heap)
GRAD(helper)

typedef void (*grad_t)(const double *, double *, int);
typedef void (*hv_rr_t)(const double *, const double *, double *, int);
typedef void (*hv_fr_t)(const double *, const double *, double *, double *, int);

static double w[MAXN], v[MAXN], hv[MAXN], hv2[MAXN], g[MAXN], gp[MAXN], gm[MAXN], wp[MAXN], wm[MAXN];

/* Leaves freed heap memory full of NaN bytes, so that memory the gradients take and do not
 * clear (a shadow stack's chunk is adjoint memory: it must start zeroed) shows in the results. */
static void scribble(void) {
    void *blocks[64];
    for (int i = 0; i < 64; i++) {
        blocks[i] = aligned_alloc(65536, 65536);
        memset(blocks[i], 0x7f, 65536);
    }
    for (int i = 0; i < 64; i++) free(blocks[i]);
}

static void check_hv(const char *label, grad_t grad, hv_rr_t rr, hv_fr_t fr, int n, int fd_checks) {
    scribble();
    for (int i = 0; i < n; i++) hv[i] = hv2[i] = g[i] = gp[i] = gm[i] = 0;
    rr(w, v, hv, n);
    fr(w, v, g, hv2, n);
    double h = 1e-6;
    for (int i = 0; i < n; i++) {
        wp[i] = w[i] + h * v[i];
        wm[i] = w[i] - h * v[i];
    }
    grad(wp, gp, n);
    grad(wm, gm, n);
    char buf[96];
    for (int i = 0; i < n; i++) {
        if (i < fd_checks || i == n - 1) {
            snprintf(buf, sizeof buf, "%s n=%d Hv[%d] rev/rev vs FD", label, n, i);
            check_close(buf, hv[i], (gp[i] - gm[i]) / (2 * h), FD_RTOL, FD_ATOL);
        }
        snprintf(buf, sizeof buf, "%s n=%d Hv[%d] rev/rev vs fwd/rev", label, n, i);
        if (fabs(hv[i] - hv2[i]) > 1e-10 * (1 + fabs(hv2[i])) || i < 2)
            check_close(buf, hv[i], hv2[i], 1e-10, 1e-10);
    }
}

/* Newton's square root: a loop whose trip count depends on the value. */
static double newton_sqrt(double x) {
    double y = x > 1 ? x : 1;
    for (int k = 0; k < 100; k++) {
        double next = 0.5 * (y + x / y);
        if (fabs(next - y) < 1e-15 * next) break;
        y = next;
    }
    return y;
}
static double newton_d(double x) { return __enzyme_autodiff((void *)newton_sqrt, x); }
static double newton_dd(double x) { return __enzyme_autodiff((void *)newton_d, x); }

/* The inner gradient called again and again: sum_k d/dx f(x + k/10). */
static double series(double x, int m) {
    double s = 0;
    for (int i = 1; i <= m; i++) s += sin(i * x) / i;
    return s;
}
static double series_d(double x, int m) { return __enzyme_autodiff((void *)series, x, enzyme_const, m); }
static double series_sum(double x, int m) {
    double s = 0;
    for (int k = 0; k < 4; k++) s += series_d(x + 0.1 * k, m) * (k + 1);
    return s;
}
static double series_dd(double x, int m) { return __enzyme_autodiff((void *)series_d, x, enzyme_const, m); }

int main(int argc, char **argv) {
    (void)argv;
    for (int i = 0; i < MAXN; i++) {
        w[i] = 0.4 * sin(1.3 * i + 0.2);
        v[i] = cos(0.7 * i) - 0.3;
    }
    int small = argc + 2, mid = argc + 16; /* 3 and 17, unknown to the compiler */
    int sizes[3] = {small, mid, MAXN};
    for (int k = 0; k < 3; k++) {
        check_hv("chain", chain_grad, chain_hv_rr, chain_hv_fr, sizes[k], 4);
        check_hv("heap", heap_grad, heap_hv_rr, heap_hv_fr, sizes[k], 4);
    }
    check_hv("nested", nested_grad, nested_hv_rr, nested_hv_fr, small, 4);
    check_hv("nested", nested_grad, nested_hv_rr, nested_hv_fr, 60, 4);
    check_hv("helper", helper_grad, helper_hv_rr, helper_hv_fr, 2 * small, 6);
    check_hv("helper", helper_grad, helper_hv_rr, helper_hv_fr, 2 * mid, 6);

    /* Width 2: the gradient written into g, seeded by two directions; each lane is H s. */
    for (int k = 0; k < 2; k++) {
        int n = k ? mid : small;
        static double s1[MAXN], s2[MAXN], h1[MAXN], h2[MAXN], f1[MAXN], f2[MAXN];
        for (int i = 0; i < n; i++) {
            s1[i] = v[i];
            s2[i] = sin(0.3 * i) + 0.5;
            h1[i] = h2[i] = f1[i] = f2[i] = g[i] = 0;
        }
        __enzyme_autodiff((void *)chain_grad, enzyme_width, 2, enzyme_dup, w, h1, h2, enzyme_dup, g, s1, s2,
                          enzyme_const, n);
        chain_hv_fr(w, v, gp, f1, n);
        for (int i = 0; i < n; i++) gp[i] = 0;
        chain_hv_fr(w, s2, gp, f2, n);
        for (int i = 0; i < n; i++) {
            check_close("chain width 2 lane 0 vs fwd/rev", h1[i], f1[i], 1e-10, 1e-10);
            check_close("chain width 2 lane 1 vs fwd/rev", h2[i], f2[i], 1e-10, 1e-10);
        }
    }

    double xs[4] = {0.3, 2.0, 9.5, 1e3};
    for (int p = 0; p < 4; p++) {
        double x = xs[p];
        check_close("newton sqrt''", newton_dd(x), -0.25 / (x * sqrt(x)), 1e-9, 1e-14);
        check_close("newton sqrt'''", __enzyme_fwddiff((void *)newton_dd, x, 1.0), 0.375 / (x * x * sqrt(x)), 1e-9, 1e-14);
    }
    int ms[3] = {1, 7, 300};
    for (int p = 0; p < 3; p++) {
        int m = ms[p];
        for (double x = -0.9; x < 1.5; x += 0.8) {
            double f2 = 0, f3 = 0, s2 = 0;
            for (int i = 1; i <= m; i++) {
                f2 -= i * sin(i * x);
                f3 -= (double)i * i * cos(i * x);
            }
            for (int k = 0; k < 4; k++)
                for (int i = 1; i <= m; i++) s2 -= (k + 1) * i * sin(i * (x + 0.1 * k));
            double tol = 1e-11 * m * m;
            check_close("series'' rev/rev", series_dd(x, m), f2, 1e-11, tol);
            check_close("series''' fwd/rev/rev", __enzyme_fwddiff((void *)series_dd, x, 1.0, enzyme_const, m), f3, 1e-11, tol * m);
            check_close("sum of series'' (inner gradient in a loop)",
                        __enzyme_autodiff((void *)series_sum, x, enzyme_const, m), s2, 1e-11, tol);
        }
    }
    return zyg_report();
}
