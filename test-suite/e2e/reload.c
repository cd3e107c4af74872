// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// Under a budget, `gathered`'s loop (a call in it) is segmented too: its counter, read back
// from the loop state, goes to `tabled`, whose -O2 body has an `llvm.assume` on it.
// RUN: env ZYG_GRAD_FLAGS=--tape-budget=4KiB %grad-run -O2 %s %t.budget | FileCheck %s
// RUN: %zyg grad -v %t.O0.ll -o %t.v0.ll 2>&1 | FileCheck --check-prefix=REPORT %s
// RUN: %zyg grad -v %t.O2.ll -o %t.v2.ll 2>&1 | FileCheck --check-prefix=REPORT %s
// RUN: %zyg grad -v %t.O2.ll -o %t.v2.ll 2>&1 | FileCheck --check-prefix=TAPED %s
// RUN: %zyg grad -vv %t.O0.ll -o %t.vv.ll 2>&1 | FileCheck --check-prefix=WHY %s
// WHY-DAG: to_out_plain: parameter 1's memory may change in the call (line {{[0-9]+}}): `store double
// WHY-DAG: copied: parameter 0's memory may change in the call (line {{[0-9]+}}): `call void @llvm.memcpy
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Reloading instead of storing (zyg-transform/src/reload.rs): a loop's loads of memory
// nothing writes before the adjoint are run again by the adjoint instead of taped. Each
// function below reads its inputs in a loop; where a later write may change that memory
// (a store, a copy, a callee writing its argument, an output pointer that may alias the
// input, a caller's write after a differentiated callee returns, split mode) the values
// must come from the tape, and the gradient is checked against central differences with
// the memory really changed (aliasing outputs included).
#include <string.h>
#include "zyg_check.h"

typedef struct { void *tape; double result; } aug_t;
aug_t __enzyme_augmentfwd(void *, ...);
void __enzyme_reverse(void *, ...);

#define N 7

// Reads only: x[i] and w[i] are loaded again.
// REPORT-DAG: weighted: tape of {{.*}} loaded again)
double weighted(const double *x, const double *w, int n) {
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += x[i] * w[i] * w[i];
    return s;
}

// An output written after the loop through a `restrict` pointer: it cannot be the inputs'
// memory, so they are loaded again.
// REPORT-DAG: to_out: tape of {{.*}} loaded again)
void to_out(const double *restrict x, const double *restrict w, double *restrict out, int n) {
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += sin(x[i] * w[i]) * w[i];
    *out = s;
}

// The same without `restrict`: `out` may be `w`'s memory (the test passes `w + 2`), so w
// is taped.
// TAPED-NOT: to_out_plain: tape of {{.*}} loaded again)
void to_out_plain(const double *x, double *w, double *out, int n) {
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += sin(x[i] * w[i]) * w[i];
    *out = s;
}

// A later loop rewrites the memory the first one read.
// TAPED-NOT: rescaled: tape of {{.*}} loaded again)
double rescaled(double *a, int n) {
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += a[i] * a[i] * a[i];
    for (int i = 0; i < n; i++)
        a[i] *= 0.5;
    return s;
}

// A copy into the memory after the loop.
// TAPED-NOT: copied: tape of {{.*}} loaded again)
double copied(double *a, const double *b, int n) {
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += a[i] * a[i] * b[i];
    memcpy(a, b, sizeof(double) * (size_t)n);
    return s;
}

// A callee writes the memory after the loop (at -O0 a call; at -O2 inlined, a store).
__attribute__((noinline)) void halve(double *a, int n) {
    for (int i = 0; i < n; i++)
        a[i] = 0.5 * a[i] + 0.1;
}
// TAPED-NOT: called_after: tape of {{.*}} loaded again)
double called_after(double *a, int n) {
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += a[i] * a[i] * a[i];
    halve(a, n);
    return s + a[0] * a[1];
}

// Differentiated both on its own and as `then_zero`'s callee: after it returns there,
// `then_zero` overwrites the memory it read, so its callee version must tape (the gradient
// of `then_zero` checks it; `cubes` requested alone may reload).
double cubes(double *a, int n) {
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += a[i] * a[i] * a[i];
    return s;
}
double then_zero(double *a, int n) {
    double s = cubes(a, n);
    for (int i = 0; i < n; i++)
        a[i] = 0.0;
    return s * s;
}

// Split mode: the caller changes the memory between the forward and the reverse call; a
// combined-mode request of the same function elsewhere must not make it reload.
double squares(double *a, int n) {
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += sin(a[i]) * a[i];
    return s;
}

// lgamma after the loop (it sets the C library's `signgam`, no parameter's memory): the
// loop's loads are loaded again all the same.
// REPORT-DAG: after_lgamma: tape of {{.*}} loaded again)
double after_lgamma(const double *x, int n) {
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += x[i] * x[i] * x[i];
    return s + lgamma(2.5 + x[0] * x[0]);
}

// A constant table, loaded again even in a callee; an index array loaded again for the
// gather and for the shadow's address.
static const double table[8] = {0.5, -1.25, 2.0, 0.75, -0.5, 1.5, 0.25, -2.0};
__attribute__((noinline)) double tabled(const double *x, int n) {
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += table[i & 7] * x[i] * x[i];
    return s;
}
// REPORT-DAG: gathered: tape of {{.*}} loaded again)
double gathered(const double *x, const int *idx, int n) {
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += x[idx[i]] * x[idx[i]] * x[i] + tabled(x, 1 + (i & 1));
    return s;
}

static int n_of;
static double weighted_of(const double *v, void *c) { (void)c; return weighted(v, v + N, n_of); }
static double to_out_of(const double *v, void *c) {
    (void)c;
    double o;
    to_out(v, v + N, &o, n_of);
    return o;
}
// `to_out_plain` with out = w + 2: the result is the final w[2].
static double to_out_plain_of(const double *v, void *c) {
    (void)c;
    double w[N];
    memcpy(w, v + N, sizeof w);
    to_out_plain(v, w, w + 2, n_of);
    return w[2];
}
// The functions of their first argument's memory, on a copy (as the gradient call had).
#define ON_A_COPY(name, ...)                               \
    static double name##_of(const double *v, void *c) {    \
        (void)c;                                           \
        double a[N];                                       \
        memcpy(a, v, sizeof a);                            \
        return name(__VA_ARGS__);                          \
    }
ON_A_COPY(rescaled, a, n_of)
ON_A_COPY(copied, a, v + N, n_of)
ON_A_COPY(called_after, a, n_of)
ON_A_COPY(then_zero, a, n_of)
ON_A_COPY(cubes, a, n_of)
ON_A_COPY(squares, a, n_of)
static double after_lgamma_of(const double *v, void *c) { (void)c; return after_lgamma(v, n_of); }
static const int perm[N] = {3, 0, 6, 3, 1, 5, 2};
static double gathered_of(const double *v, void *c) { (void)c; return gathered(v, perm, n_of); }

int main(void) {
    int sizes[3] = {N, 5, 1};
    for (int c = 0; c < 3; c++) {
        int n = n_of = sizes[c];
        double v[2 * N], g[2 * N], a[N];
        for (int i = 0; i < 2 * N; i++)
            v[i] = 0.4 + 0.8 * sin(1.7 * i + c);
#define ZERO() memset(g, 0, sizeof g)
        ZERO();
        __enzyme_autodiff((void *)weighted, v, g, v + N, g + N, n);
        check_array_fd("d weighted", weighted_of, 0, v, 2 * N, g);

        ZERO();
        double o = 0.0, d_o = 1.0;
        __enzyme_autodiff((void *)to_out, v, g, v + N, g + N, &o, &d_o, n);
        check_array_fd("d to_out", to_out_of, 0, v, 2 * N, g);

        // out aliases w[2]: its shadow is the shadow of w[2], seeded with the result's 1.
        ZERO();
        double w[N];
        memcpy(w, v + N, sizeof w);
        g[N + 2] = 1.0;
        __enzyme_autodiff((void *)to_out_plain, v, g, w, g + N, w + 2, g + N + 2, n);
        check_array_fd("d to_out_plain (aliased)", to_out_plain_of, 0, v, 2 * N, g);

        ZERO();
        memcpy(a, v, sizeof a);
        __enzyme_autodiff((void *)rescaled, a, g, n);
        check_array_fd("d rescaled", rescaled_of, 0, v, N, g);

        ZERO();
        memcpy(a, v, sizeof a);
        __enzyme_autodiff((void *)copied, a, g, v + N, g + N, n);
        check_array_fd("d copied", copied_of, 0, v, 2 * N, g);

        ZERO();
        memcpy(a, v, sizeof a);
        __enzyme_autodiff((void *)called_after, a, g, n);
        check_array_fd("d called_after", called_after_of, 0, v, N, g);

        ZERO();
        memcpy(a, v, sizeof a);
        __enzyme_autodiff((void *)then_zero, a, g, n);
        check_array_fd("d then_zero", then_zero_of, 0, v, N, g);

        ZERO();
        memcpy(a, v, sizeof a);
        __enzyme_autodiff((void *)cubes, a, g, n);
        check_array_fd("d cubes", cubes_of, 0, v, N, g);

        // Split mode, the memory zeroed in between.
        ZERO();
        memcpy(a, v, sizeof a);
        aug_t t = __enzyme_augmentfwd((void *)squares, enzyme_dup, a, g, enzyme_const, n);
        memset(a, 0, sizeof a);
        __enzyme_reverse((void *)squares, enzyme_dup, a, g, enzyme_const, n, 1.0, t.tape);
        check_array_fd("d squares (split)", squares_of, 0, v, N, g);
        ZERO();
        memcpy(a, v, sizeof a);
        __enzyme_autodiff((void *)squares, a, g, n);
        check_array_fd("d squares", squares_of, 0, v, N, g);

        ZERO();
        __enzyme_autodiff((void *)after_lgamma, v, g, n);
        check_array_fd("d after_lgamma", after_lgamma_of, 0, v, N, g);

        ZERO();
        __enzyme_autodiff((void *)gathered, v, g, enzyme_const, perm, n);
        check_array_fd("d gathered", gathered_of, 0, v, N, g);
    }
    return zyg_report();
}
