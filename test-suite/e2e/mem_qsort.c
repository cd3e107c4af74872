// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// qsort and glibc's qsort_r on differentiated memory: the derivative of a sort is its
// permutation (the adjoint of the element sorted to position k goes back where it came
// from; forward mode moves the tangents with their elements). Rank-dependent weights, a
// median, a trimmed mean, a sort in place of a `dup` input, sorts repeated in a loop, a
// float array, records {key, weight, id} sorted by key, records holding a pointer into
// the input (its shadow moves with it), and qsort_r sorting descending through its context.
// Reverse mode against central differences at points without ties; forward mode against
// the reverse gradient; vector forward mode (enzyme_width) against width-1 forward mode.
// Ties: equal elements keep their input order (a stable sort), so each gets the derivative
// of the position it keeps; checked exactly at a point with ties.
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include "zyg_check.h"

extern int enzyme_width, enzyme_dup, enzyme_const;
typedef struct { double d[2]; } t2;
t2 __enzyme_fwddiff2(void *, ...) __asm__("__enzyme_fwddiff");

#define N 7

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int by_value_f(const void *a, const void *b) {
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* qsort_r's comparator: the context says which way (+1 ascending, -1 descending). */
static int by_value_directed(const void *a, const void *b, void *context) {
    int way = *(const int *)context;
    double x = *(const double *)a, y = *(const double *)b;
    return way * ((x > y) - (x < y));
}

typedef struct {
    double key;
    double weight;
    int id;
} record;

static int by_key(const void *a, const void *b) {
    double x = ((const record *)a)->key, y = ((const record *)b)->key;
    return (x > y) - (x < y);
}

typedef struct {
    double key;
    const double *source;
} link;

static int by_link_key(const void *a, const void *b) {
    double x = ((const link *)a)->key, y = ((const link *)b)->key;
    return (x > y) - (x < y);
}

/* sum_i (i + 1) * sorted(x^2 - x)_i */
static double weighted(const double *x, int n) {
    double *t = malloc(n * sizeof(double));
    for (int i = 0; i < n; i++) t[i] = x[i] * x[i] - x[i];
    qsort(t, n, sizeof(double), by_value);
    double s = 0;
    for (int i = 0; i < n; i++) s += t[i] * (i + 1);
    free(t);
    return s;
}

/* The median of sin(x) + x (n odd), times the largest. */
static double median(const double *x, int n) {
    double t[N];
    for (int i = 0; i < n; i++) t[i] = sin(x[i]) + x[i];
    qsort(t, n, sizeof(double), by_value);
    return t[n / 2] * t[n - 1];
}

/* The mean of exp(x) without the lowest and highest two. */
static double trimmed_mean(const double *x, int n) {
    double *t = malloc(n * sizeof(double));
    for (int i = 0; i < n; i++) t[i] = exp(x[i]);
    qsort(t, n, sizeof(double), by_value);
    double s = 0;
    for (int i = 2; i < n - 2; i++) s += t[i];
    free(t);
    return s / (n - 4);
}

/* Sorts the input itself (a `dup` argument), then weights by rank. */
static double in_place(double *x, int n) {
    qsort(x, n, sizeof(double), by_value);
    double s = 0;
    for (int i = 0; i < n; i++) s += x[i] * x[i] * (n - i);
    return s;
}

/* Three rounds of sort, then scale by rank: one permutation per round on the tape. */
static double rounds(const double *x, int n) {
    double *t = malloc(n * sizeof(double));
    for (int i = 0; i < n; i++) t[i] = x[i];
    for (int r = 0; r < 3; r++) {
        qsort(t, n, sizeof(double), by_value);
        for (int i = 0; i < n; i++) t[i] = t[i] * (1.0 + 0.1 * i) - 0.3 * t[(i + 1) % n];
    }
    double s = 0;
    for (int i = 0; i < n; i++) s += t[i] * t[i] * (i % 3 + 1);
    free(t);
    return s;
}

/* A float array. */
static double floats(const double *x, int n) {
    float t[N];
    for (int i = 0; i < n; i++) t[i] = (float)(x[i] * 1.5);
    qsort(t, n, sizeof(float), by_value_f);
    double s = 0;
    for (int i = 0; i < n; i++) s += (double)t[i] * (i + 1);
    return s;
}

/* Records sorted by key: the weights travel with their keys. */
static double records(const double *x, int n) {
    record r[N];
    for (int i = 0; i < n; i++) {
        r[i].key = cos(x[i]) + 0.5 * x[i];
        r[i].weight = x[(i + 2) % n] * x[i];
        r[i].id = i;
    }
    qsort(r, n, sizeof(record), by_key);
    double s = 0;
    for (int i = 0; i < n; i++) s += r[i].weight * (i + 1) + r[i].key * r[i].id;
    return s;
}

/* Records holding a pointer into x: after the sort, each still reads its own source. */
static double links(const double *x, int n) {
    link *l = malloc(n * sizeof(link));
    for (int i = 0; i < n; i++) {
        l[i].key = x[i] * 2.0 - x[(i + 3) % n];
        l[i].source = &x[i];
    }
    qsort(l, n, sizeof(link), by_link_key);
    double s = 0;
    for (int i = 0; i < n; i++) s += l[i].key * (i + 1) + *l[i].source * *l[i].source * i;
    free(l);
    return s;
}

/* qsort_r descending, the direction in the context. */
static double descending(const double *x, int n) {
    double t[N];
    int way = -1;
    for (int i = 0; i < n; i++) t[i] = x[i] * x[i] * x[i];
    qsort_r(t, n, sizeof(double), by_value_directed, &way);
    double s = 0;
    for (int i = 0; i < n; i++) s += t[i] / (i + 1);
    return s;
}

typedef double (*loss_fn)(const double *, int);
static loss_fn current;
static double call_current(const double *x, void *ctx) {
    (void)ctx;
    double copy[N];
    memcpy(copy, x, sizeof copy);
    return current(copy, N);
}

/* Reverse mode against central differences, forward mode (one unit direction at a time,
 * on a fresh copy: some sort their input) against the reverse gradient. A macro: requests
 * name their function at compile time. */
#define CHECK_LOSS(label, f, point)                                               \
    do {                                                                          \
        double x[N], dx[N] = {0};                                                 \
        memcpy(x, point, sizeof x);                                               \
        __enzyme_autodiff((void *)f, x, dx, N);                                   \
        current = (loss_fn)f;                                                     \
        check_array_fd(label, call_current, 0, point, N, dx);                     \
        for (int k = 0; k < N; k++) {                                             \
            double dir[N] = {0};                                                  \
            dir[k] = 1;                                                           \
            memcpy(x, point, sizeof x);                                           \
            double t = __enzyme_fwddiff((void *)f, x, dir, N);                    \
            check_close(label, t, dx[k], 1e-9, 1e-12);                            \
        }                                                                         \
    } while (0)

/* Vector forward mode: two directions at once, each against width-1 forward mode. */
static void check_lanes(const double *point) {
    double x[N], d0[N], d1[N], e[N];
    for (int i = 0; i < N; i++) d0[i] = 0.3 * i - 1, d1[i] = 1.0 / (i + 1);
    memcpy(x, point, sizeof x);
    t2 both = __enzyme_fwddiff2((void *)weighted, enzyme_width, 2, enzyme_dup, x, d0, d1, enzyme_const, N);
    memcpy(e, d0, sizeof e);
    double one = __enzyme_fwddiff((void *)weighted, x, e, N);
    check_close("lane 0", both.d[0], one, 1e-12, 1e-12);
    memcpy(e, d1, sizeof e);
    one = __enzyme_fwddiff((void *)weighted, x, e, N);
    check_close("lane 1", both.d[1], one, 1e-12, 1e-12);
}

int main(void) {
    double points[3][N] = {{0.3, -0.55, 0.8, 1.1, -0.2, 0.65, 0.9},
                           {1.4, 0.2, -0.7, 0.5, 0.35, -1.2, 0.15},
                           {-0.9, 0.75, 0.4, -0.3, 1.05, 0.55, -0.45}};
    for (int p = 0; p < 3; p++) {
        CHECK_LOSS("weighted", weighted, points[p]);
        CHECK_LOSS("median", median, points[p]);
        CHECK_LOSS("trimmed mean", trimmed_mean, points[p]);
        CHECK_LOSS("in place", in_place, points[p]);
        CHECK_LOSS("rounds", rounds, points[p]);
        CHECK_LOSS("records", records, points[p]);
        CHECK_LOSS("links", links, points[p]);
        CHECK_LOSS("descending", descending, points[p]);
        check_lanes(points[p]);
    }
    /* floats: against float finite differences' tolerance, at one point. */
    {
        double x[N], dx[N] = {0};
        memcpy(x, points[0], sizeof x);
        __enzyme_autodiff((void *)floats, x, dx, N);
        for (int k = 0; k < N; k++) {
            double up[N], down[N], h = 1e-2;
            memcpy(up, x, sizeof up);
            memcpy(down, x, sizeof down);
            up[k] += h, down[k] -= h;
            check_close("floats", dx[k], (floats(up, N) - floats(down, N)) / (2 * h), FLOAT_RTOL, FLOAT_ATOL);
        }
    }
    /* Ties: x = {3, 1, 3, 2, 1, 5, 3}; sorted 1 1 2 3 3 3 5. The two 1s (x[1], x[4]) keep
     * their order at positions 0 and 1, the 3s (x[0], x[2], x[6]) at 3, 4 and 5, so
     * d/dx[j] sum_i w_i sorted_i = w of the position x[j] keeps; in_place's weights:
     * 2 x (n - i). */
    {
        double x[N] = {3, 1, 3, 2, 1, 5, 3}, dx[N] = {0}, dir[N];
        int position[N] = {3, 0, 4, 2, 1, 6, 5};
        __enzyme_autodiff((void *)in_place, x, dx, N);
        double back[N] = {3, 1, 3, 2, 1, 5, 3};
        for (int j = 0; j < N; j++)
            check_close("tie", dx[j], 2 * back[j] * (N - position[j]), 0, 0);
        for (int j = 0; j < N; j++) {
            double y[N] = {3, 1, 3, 2, 1, 5, 3};
            for (int i = 0; i < N; i++) dir[i] = i == j;
            check_close("tie forward", __enzyme_fwddiff((void *)in_place, y, dir, N), dx[j], 0, 0);
        }
    }
    return zyg_report();
}
