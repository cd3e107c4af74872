// RUN: env ZYG_GRAD_FLAGS= ZYG_LINK_FLAGS=-Wl,--wrap=malloc,--wrap=free,--wrap=calloc,--wrap=realloc %grad-run -O2 %s %t | tee %t.plain.out | FileCheck --check-prefixes=CHECK,PLAIN %s
// RUN: env ZYG_GRAD_FLAGS= ZYG_LINK_FLAGS=-Wl,--wrap=malloc,--wrap=free,--wrap=calloc,--wrap=realloc %grad-run -O0 %s %t | tee %t.plain0.out | FileCheck --check-prefixes=CHECK,PLAIN %s
// RUN: env ZYG_LINK_FLAGS=-Wl,--wrap=malloc,--wrap=free,--wrap=calloc,--wrap=realloc ZYG_GRAD_FLAGS=--tape-budget=112KiB %grad-run -O2 %s %t.b -DBUDGET=114688 | tee %t.budget.out | FileCheck --check-prefixes=CHECK,BUDGET %s
// RUN: env ZYG_LINK_FLAGS=-Wl,--wrap=malloc,--wrap=free,--wrap=calloc,--wrap=realloc ZYG_GRAD_FLAGS=--tape-budget=112KiB %grad-run -O0 %s %t.b -DUNCHECKED | tee %t.budget0.out | FileCheck %s
// RUN: grep BITS %t.plain.out > %t.plain.bits
// RUN: grep BITS %t.plain0.out > %t.plain0.bits
// RUN: grep BITS %t.budget.out > %t.budget.bits
// RUN: grep BITS %t.budget0.out > %t.budget0.bits
// RUN: diff %t.plain.bits %t.budget.bits
// RUN: diff %t.plain0.bits %t.budget0.bits
// CHECK-NOT: FAIL
// PLAIN: ok without a budget, the tape takes megabytes
// BUDGET: ok call 2 within the budget
// BUDGET: ok call 3 within the budget
// CHECK: ALL OK
// The tape budget chooses the segments' lengths (zyg-transform/src/segment.rs): K0, the
// iterations per steps call, is half the budget over the tape bytes one iteration took when
// the adjoint last reran the steps (measured into a global, 32 until then), and K1, the steps
// calls per segment, a quarter of the budget over the bytes of the loop's memory. An RK4
// integration of Lorenz-96 (32 variables, 3000 steps) takes about 6 MB of tape without a
// budget; under 112 KiB, the first gradient call (K0 = 32, unmeasured) goes past it, the later
// ones stay under it. Every allocation of the program is counted (the link wraps malloc and
// free), the chunk cache released before each call so that the tape's chunks are allocated
// anew. The gradients are the same bits with and without the budget and on every call (the
// forcing constant's, a sum over segments, to 10 digits); at -O0 the budget is not checked:
// an iteration tapes 13.8 KB there (its callees are not inlined), so K0 = 2 and the loop is
// too long for two levels at this budget (88 outer copies: 198 KB). And they match finite
// differences.
#include <malloc.h>
#include <stdint.h>
#include <string.h>
#include "zyg_check.h"

void __zyg_release_tape_cache(void);
void *__real_malloc(size_t);
void __real_free(void *);
void *__real_calloc(size_t, size_t);
void *__real_realloc(void *, size_t);

static int counting;
static int64_t live, peak;
static void note(int64_t delta) {
    live += delta;
    if (live > peak)
        peak = live;
}
void *__wrap_malloc(size_t n) {
    void *p = __real_malloc(n);
    if (counting && p)
        note((int64_t)malloc_usable_size(p));
    return p;
}
void *__wrap_calloc(size_t n, size_t size) {
    void *p = __real_calloc(n, size);
    if (counting && p)
        note((int64_t)malloc_usable_size(p));
    return p;
}
void __wrap_free(void *p) {
    if (counting && p)
        note(-(int64_t)malloc_usable_size(p));
    __real_free(p);
}
void *__wrap_realloc(void *p, size_t n) {
    int64_t old = counting && p ? (int64_t)malloc_usable_size(p) : 0;
    void *q = __real_realloc(p, n);
    if (counting && q)
        note((int64_t)malloc_usable_size(q) - old);
    return q;
}

#define N 32
#define STEPS 3000

#include "zyg_lorenz96.h"


static double F0 = 8.0;
static double ode_of(const double *x, void *steps) { return ode(x, F0, *(int *)steps); }
static double ode_F(double F) {
    double x[N];
    for (int i = 0; i < N; i++)
        x[i] = 1.0 + 0.05 * sin(i);
    return ode(x, F, STEPS);
}

int main(void) {
    double x0[N], dx[N];
    for (int i = 0; i < N; i++)
        x0[i] = 1.0 + 0.05 * sin(i);
    int steps = STEPS;
    for (int call = 1; call <= 3; call++) {
        memset(dx, 0, sizeof dx);
        __zyg_release_tape_cache();
        live = peak = 0;
        counting = 1;
        double dF = __enzyme_autodiff((void *)ode, x0, dx, F0, steps);
        counting = 0;
        char label[64];
        for (int k = 0; k < N; k += 7)
            printf("BITS call %d dx[%d] %a\n", call, k, dx[k]);
        printf("BITS call %d dF %.10e\n", call, dF);
#ifdef BUDGET
        snprintf(label, sizeof label, "call %d within the budget", call);
        if (call > 1)
            check_close(label, peak <= BUDGET, 1, 0, 0);
        printf("peak of call %d: %lld bytes\n", call, (long long)peak);
#elif !defined(UNCHECKED)
        if (call == 1 && peak > 4 * 114688)
            printf("ok without a budget, the tape takes megabytes (%lld bytes)\n", (long long)peak);
#endif
        if (call == 1) {
            check_array_fd_every("d ode / dx0", ode_of, &steps, x0, N, dx, 5);
            check_close("d ode / dF", dF, FD1(ode_F, F0), FD_RTOL, FD_ATOL);
        }
        (void)label;
    }
    return zyg_report();
}
