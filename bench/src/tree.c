/* A recursive divide-and-conquer reduction (issue 16's second recursion case): f(a, n) is
 * sin(a[0]) for n = 1, else logaddexp(f(a, n/2), f(a + n/2, n - n/2)), so f = log sum_i
 * exp(sin a_i), reduced as a balanced tree of 2n - 1 activations. The combination is nonlinear:
 * its adjoint needs both halves' values (d logaddexp(x, y) / dx = sigmoid(x - y)), which a
 * reverse pass must keep or recompute.
 *
 * The hand-written adjoint follows the same recursion and keeps the values it needs: a forward
 * recursion writes every node's value to one array (2n - 1 doubles, post-order), a reverse
 * recursion of the same shape reads the two children's values at each node. Its cost is about
 * twice the primal's; its memory is 8 (2n - 1) bytes in one allocation. */
#include "bench.h"
#include "../adbench/common.h"

/* log(exp x + exp y), shifted by the larger */
static double logaddexp(double x, double y) {
    double m = x > y ? x : y;
    return m + log1p(exp(-fabs(x - y)));
}

double tree_reduce(const double *a, int n) {
    if (n == 1)
        return sin(a[0]);
    int h = n / 2;
    return logaddexp(tree_reduce(a, h), tree_reduce(a + h, n - h));
}

/* tree_reduce, writing the value of every node of the subtree to v in post-order: a subtree of
 * m leaves takes 2m - 1 slots, its root the last */
static double tree_forward(const double *a, int n, double *v) {
    if (n == 1)
        return v[0] = sin(a[0]);
    int h = n / 2;
    double x = tree_forward(a, h, v);
    double y = tree_forward(a + h, n - h, v + 2 * h - 1);
    return v[2 * n - 2] = logaddexp(x, y);
}

/* da += dd * d tree_reduce(a, n) / da, from the node values tree_forward wrote to v */
static void tree_reverse(const double *a, int n, const double *v, double dd, double *da) {
    if (n == 1) {
        da[0] += dd * cos(a[0]);
        return;
    }
    int h = n / 2;
    double x = v[2 * h - 2], y = v[2 * h - 1 + 2 * (n - h) - 2];
    double wx = 1.0 / (1.0 + exp(y - x)); /* sigmoid(x - y) */
    tree_reverse(a, h, v, dd * wx, da);
    tree_reverse(a + h, n - h, v + 2 * h - 1, dd * (1.0 - wx), da + h);
}

typedef struct {
    bench_grad g;
    int n;
    double *a;
} tree_ctx;

void *tree_setup(int n, uint64_t seed) {
    tree_ctx *c = (tree_ctx *)calloc(1, sizeof *c);
    c->n = n;
    bench_grad_init(&c->g, n);
    c->a = (double *)malloc(sizeof(double) * (size_t)n);
    adb_rng r = adb_rng_new(seed);
    for (int i = 0; i < n; i++)
        c->a[i] = adb_rng_uniform(&r, -3.0, 3.0);
    return c;
}

void tree_free(void *p) {
    tree_ctx *c = (tree_ctx *)p;
    bench_grad_free(&c->g);
    free(c->a);
    free(c);
}

double tree_primal(void *p) {
    tree_ctx *c = (tree_ctx *)p;
    return tree_reduce(c->a, c->n);
}

double tree_zyg(void *p) {
    tree_ctx *c = (tree_ctx *)p;
    bench_zero(c->g.zyg, (size_t)c->n);
    ZB_AUTODIFFV((void *)tree_reduce, enzyme_dup, c->a, c->g.zyg, enzyme_const, c->n);
    return c->g.zyg[0];
}

double tree_hand(void *p) {
    tree_ctx *c = (tree_ctx *)p;
    int n = c->n;
    double *v = (double *)malloc(sizeof(double) * (size_t)(2 * n - 1));
    double f = tree_forward(c->a, n, v);
    bench_zero(c->g.hand, (size_t)n);
    tree_reverse(c->a, n, v, 1.0, c->g.hand);
    free(v);
    return f;
}
