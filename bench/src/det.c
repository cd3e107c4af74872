/* The determinant by recursive expansion along the first row (issue 16's recursion case, the
 * workload of an outside "det" benchmark): each activation mallocs the (n-1) x (n-1) minor of
 * each first-row entry, recurses into it and frees it, so n! leaves and about e n! activations.
 * The gradient is with respect to all n^2 entries (the cofactor matrix).
 *
 * The hand-written adjoint follows the same recursion and keeps no tape: for each column it
 * builds the minor again, recomputes the minor's determinant with the primal, and recurses into
 * the minor's adjoint. Its cost grows like n times the primal's (each level reruns the primal of
 * the levels below it); its memory is the minors and their adjoints along one path of the
 * recursion, as the primal's. */
#include "bench.h"
#include "../adbench/common.h"

/* the (n-1) x (n-1) minor of a (row-major, n x n) without row 0 and column j */
static void det_minor(const double *a, int n, int j, double *m) {
    for (int r = 1; r < n; r++) {
        double *row = m + (size_t)(r - 1) * (n - 1);
        for (int c = 0, k = 0; c < n; c++)
            if (c != j)
                row[k++] = a[(size_t)r * n + c];
    }
}

double det(const double *a, int n) {
    if (n == 1)
        return a[0];
    double *m = (double *)malloc(sizeof(double) * (size_t)(n - 1) * (n - 1));
    double s = 0.0, sign = 1.0;
    for (int j = 0; j < n; j++) {
        det_minor(a, n, j, m);
        s += sign * a[j] * det(m, n - 1);
        sign = -sign;
    }
    free(m);
    return s;
}

/* da += dd * d det(a) / da, by the same recursion: d det / d a[0][j] = sign_j det(minor_j), and
 * the minor's entries receive sign_j a[0][j] dd through its own adjoint, scattered back to the
 * rows 1.. and the columns other than j. */
static void det_adj(const double *a, int n, double dd, double *da) {
    if (n == 1) {
        da[0] += dd;
        return;
    }
    size_t mm = (size_t)(n - 1) * (n - 1);
    double *m = (double *)malloc(sizeof(double) * mm);
    double *dm = (double *)malloc(sizeof(double) * mm);
    double sign = 1.0;
    for (int j = 0; j < n; j++) {
        det_minor(a, n, j, m);
        da[j] += sign * det(m, n - 1) * dd;
        bench_zero(dm, mm);
        det_adj(m, n - 1, sign * a[j] * dd, dm);
        for (int r = 1; r < n; r++) {
            const double *row = dm + (size_t)(r - 1) * (n - 1);
            for (int c = 0, k = 0; c < n; c++)
                if (c != j)
                    da[(size_t)r * n + c] += row[k++];
        }
        sign = -sign;
    }
    free(m);
    free(dm);
}

typedef struct {
    bench_grad g;
    int n;
    double *a;
} det_ctx;

/* entries uniform in [-1, 1]: the determinant of such a matrix is of order sqrt(n!) at most, and
 * its cofactors are of the same order, so the relative check is well scaled */
void *det_setup(int n, uint64_t seed) {
    det_ctx *c = (det_ctx *)calloc(1, sizeof *c);
    c->n = n;
    bench_grad_init(&c->g, n * n);
    c->a = (double *)malloc(sizeof(double) * (size_t)n * n);
    adb_rng r = adb_rng_new(seed);
    for (int i = 0; i < n * n; i++)
        c->a[i] = adb_rng_uniform(&r, -1.0, 1.0);
    return c;
}

void det_free(void *p) {
    det_ctx *c = (det_ctx *)p;
    bench_grad_free(&c->g);
    free(c->a);
    free(c);
}

double det_primal(void *p) {
    det_ctx *c = (det_ctx *)p;
    return det(c->a, c->n);
}

double det_zyg(void *p) {
    det_ctx *c = (det_ctx *)p;
    bench_zero(c->g.zyg, (size_t)c->g.n);
    ZB_AUTODIFFV((void *)det, enzyme_dup, c->a, c->g.zyg, enzyme_const, c->n);
    return c->g.zyg[0];
}

double det_hand(void *p) {
    det_ctx *c = (det_ctx *)p;
    bench_zero(c->g.hand, (size_t)c->g.n);
    det_adj(c->a, c->n, 1.0, c->g.hand);
    return c->g.hand[0];
}
