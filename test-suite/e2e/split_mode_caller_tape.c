// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %valgrind %t.O0.exe > /dev/null
// RUN: %grad-run -O2 %s %t | FileCheck %s
// RUN: %valgrind %t.O2.exe > /dev/null
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Split mode with tapes in memory the caller allocated (Enzyme's `__enzyme_augmentsize`,
// `enzyme_allocated` and `enzyme_tape`): the program asks for the tape's size, allocates
// one arena for several tapes, and each forward half writes its tape at `arena + k * size`;
// the reverse halves read them back, in another order, and leave the arena to the program,
// which runs a second round in the same memory and frees it once. Under valgrind
// (%valgrind) nothing is freed twice or lost: the chunks a long loop's stack takes beyond
// the tape are freed by the reverse half, the tape memory is not.
#include <stdint.h>
#include <stdlib.h>
#include "zyg_check.h"

extern int enzyme_allocated, enzyme_tape;
size_t __enzyme_augmentsize(void *, ...);
int __enzyme_augmentsize_int(void *, ...);
void __enzyme_augmentfwd(void *, ...);
double __enzyme_augmentfwd_result(void *, ...);
void __enzyme_reverse(void *, ...);
zyg_grad2 __enzyme_reverse2(void *, ...);

// Data-dependent branches and a loop: the tape holds the path and the loaded values; with
// n in the thousands its loop stack takes chunks from malloc.
double path(const double *x, int n) {
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        double v = x[i % 7] * (1.0 + 1e-3 * (i % 5));
        if (v > 0.0)
            s += sin(v) * 1e-3 * s + v;
        else
            s = s * 0.999 - exp(v) * 1e-3;
    }
    return s;
}

double pair(double a, double b) { return a * exp(b) + log(1.0 + a * a) * b; }

// No result: y is written, its shadow is the seed.
void affine(const double *x, double *y, int n) {
    for (int i = 0; i < n; i++)
        y[i] = tanh(x[i]) * (i + 1) + x[(i + 1) % n] * x[i];
}

static double fd_path(const double *x, int n, int k) {
    double a[7], b[7], h = 1e-6;
    for (int i = 0; i < 7; i++) a[i] = b[i] = x[i];
    a[k] += h;
    b[k] -= h;
    return (path(a, n) - path(b, n)) / (2 * h);
}

enum { TAPES = 3 };

static void round_of_paths(char *arena, size_t size, const int *n, double *seed) {
    double x[TAPES][7], dx[TAPES][7] = {{0}};
    for (int k = 0; k < TAPES; k++)
        for (int i = 0; i < 7; i++) x[k][i] = 0.3 * (i + 1) * (k % 2 ? -1 : 1) + 0.1 * k - 0.05 * i * i;
    // Three tapes alive at once, in one arena; the markers may stand anywhere.
    for (int k = 0; k < TAPES; k++) {
        double r = __enzyme_augmentfwd_result((void *)path, enzyme_allocated, size, enzyme_tape, arena + k * size,
                                              enzyme_dup, x[k], dx[k], enzyme_const, n[k]);
        check_close("forward result", r, path(x[k], n[k]), EXACT_RTOL, EXACT_ATOL);
    }
    // Later, in another order (2, 0, 1), with the markers after the arguments.
    int order[TAPES] = {2, 0, 1};
    for (int j = 0; j < TAPES; j++) {
        int k = order[j];
        __enzyme_reverse((void *)path, enzyme_dup, x[k], dx[k], enzyme_const, n[k], seed[k], enzyme_allocated, size,
                         enzyme_tape, arena + k * size);
    }
    for (int k = 0; k < TAPES; k++)
        for (int i = 0; i < 7; i++) check_close("dpath/dx", dx[k][i], seed[k] * fd_path(x[k], n[k], i), FD_RTOL, FD_ATOL);
}

int main(void) {
    size_t size = __enzyme_augmentsize((void *)path, enzyme_dup, enzyme_const);
    // The same size however the call is declared, and a multiple of the tape's alignment.
    check_close("size as int", __enzyme_augmentsize_int((void *)path, enzyme_dup, enzyme_const), size, 0, 0);
    check_close("size > 0", size > 0, 1, 0, 0);
    check_close("size aligned", size % 8, 0, 0, 0);
    char *arena = malloc(TAPES * size);
    // Short loops, then one of 5000 iterations (its stack outgrows its first chunks).
    int short_n[TAPES] = {7, 3, 7}, long_n[TAPES] = {5000, 6, 2000};
    double seeds[TAPES] = {2.5, -0.5, 1.0};
    round_of_paths(arena, size, short_n, seeds);
    // The same memory again: the reverse halves left it to us.
    round_of_paths(arena, size, long_n, seeds);
    free(arena);

    // Active scalars: the reverse half returns their gradients.
    size_t psize = __enzyme_augmentsize((void *)pair, enzyme_out, enzyme_out);
    void *ptape = aligned_alloc(16, (psize + 15) / 16 * 16);
    double pts[3][2] = {{0.5, 0.3}, {-1.2, 0.7}, {2.0, -0.4}};
    for (int p = 0; p < 3; p++) {
        double a = pts[p][0], b = pts[p][1];
        double r = __enzyme_augmentfwd_result((void *)pair, enzyme_allocated, psize, enzyme_tape, ptape, a, b);
        check_close("pair result", r, pair(a, b), EXACT_RTOL, EXACT_ATOL);
        zyg_grad2 g = __enzyme_reverse2((void *)pair, enzyme_allocated, psize, enzyme_tape, ptape, a, b, 1.0);
        CHECK_FD2(pair, a, b, g);
    }
    free(ptape);

    // No result; a constant size, larger than needed.
    double x[4] = {0.3, -0.6, 1.2, 0.1}, dx[4] = {0}, y[4], dy[4] = {0};
    _Alignas(16) char local[4096];
    size_t asize = __enzyme_augmentsize((void *)affine, enzyme_dup, enzyme_dup, enzyme_const);
    check_close("affine tape fits", asize <= sizeof local, 1, 0, 0);
    __enzyme_augmentfwd((void *)affine, enzyme_allocated, sizeof local, enzyme_tape, local, x, dx, y, dy, enzyme_const, 4);
    double want_y[4];
    affine(x, want_y, 4);
    for (int i = 0; i < 4; i++) {
        check_close("y", y[i], want_y[i], EXACT_RTOL, EXACT_ATOL);
        dy[i] = 1.0 + i;  // the seed, set between the halves
    }
    __enzyme_reverse((void *)affine, enzyme_allocated, sizeof local, enzyme_tape, local, x, dx, y, dy, enzyme_const, 4);
    for (int k = 0; k < 4; k++) {
        double a[4], b[4], ya[4], yb[4], h = 1e-6, want = 0.0;
        for (int i = 0; i < 4; i++) a[i] = b[i] = x[i];
        a[k] += h;
        b[k] -= h;
        affine(a, ya, 4);
        affine(b, yb, 4);
        for (int i = 0; i < 4; i++) want += (1.0 + i) * (ya[i] - yb[i]) / (2 * h);
        check_close("daffine/dx", dx[k], want, FD_RTOL, FD_ATOL);
        check_close("dy consumed", dy[k], 0.0, EXACT_RTOL, EXACT_ATOL);
    }
    return zyg_report();
}
