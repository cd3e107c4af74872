/* Shared by the benchmark translation units (bench/src/{gmm,ba,lstm,hand,scalar,modes,hvp}.c and
 * the memory family's det.c, tree.c and ode.c).
 *
 * Every case has a context (allocated by its `*_setup` function, freed by `*_free`) that begins
 * with a bench_grad: the length of the gradient and the two buffers that zyg's gradient and
 * the hand-written one write, so that the Rust side can compare them. Each case exports three
 * functions of the same shape, `double f(void *ctx)`: the primal, zyg's gradient (a wrapper
 * around an __enzyme_autodiff request) and the hand-written gradient (modes.c and hvp.c: other
 * derivatives, the same way; hvp.c exports a fourth, zyg's gradient). Their results are only
 * there to be consumed (the gradients are compared through the bench_grad buffers).
 *
 * build.rs runs `zyg grad` on each translation unit. When zyg fails on one, build.rs compiles
 * it again with ZYG_BENCH_NO_ZYG defined: the requests then become stubs that return NaN, the
 * bench sees the build error (recorded by build.rs) and leaves zyg's column empty. */
#ifndef ZYG_BENCH_H
#define ZYG_BENCH_H
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    double d0, d1;
} zb_grad2;

#ifndef ZYG_BENCH_NO_ZYG
extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_width, enzyme_dupv, enzyme_dupnoneedv;
double __enzyme_autodiff(void *, ...);
void __enzyme_autodiffv(void *, ...);
zb_grad2 __enzyme_autodiff2(void *, ...);
double __enzyme_fwddiff(void *, ...);
void __enzyme_fwddiffv(void *, ...);
#define ZB_AUTODIFF __enzyme_autodiff
#define ZB_AUTODIFFV __enzyme_autodiffv
#define ZB_AUTODIFF2 __enzyme_autodiff2
#define ZB_FWDDIFFV __enzyme_fwddiffv
#else
#define enzyme_dup 0
#define enzyme_const 0
#define enzyme_out 0
#define enzyme_width 0
#define enzyme_dupv 0
#define enzyme_dupnoneedv 0
static __attribute__((unused)) double zb_no_autodiff(void *f, ...) {
    (void)f;
    return __builtin_nan("");
}
static __attribute__((unused)) void zb_no_autodiffv(void *f, ...) { (void)f; }
static __attribute__((unused)) zb_grad2 zb_no_autodiff2(void *f, ...) {
    (void)f;
    zb_grad2 g = {__builtin_nan(""), __builtin_nan("")};
    return g;
}
#define ZB_AUTODIFF zb_no_autodiff
#define ZB_AUTODIFFV zb_no_autodiffv
#define ZB_AUTODIFF2 zb_no_autodiff2
#define ZB_FWDDIFFV zb_no_autodiffv
#endif

/* The head of every case's context (read by bench/src/lib.rs as `GradView`). */
typedef struct {
    int n;        /* gradient length */
    double *zyg;  /* written by the case's zyg function */
    double *hand; /* written by the case's hand function */
} bench_grad;

static __attribute__((unused)) void bench_grad_init(bench_grad *g, int n) {
    g->n = n;
    g->zyg = (double *)calloc((size_t)(n > 0 ? n : 1), sizeof(double));
    g->hand = (double *)calloc((size_t)(n > 0 ? n : 1), sizeof(double));
}

static __attribute__((unused)) void bench_grad_free(bench_grad *g) {
    free(g->zyg);
    free(g->hand);
}

/* Shadows accumulate (+=): zyg's wrappers clear theirs before each request, inside the timed
 * call (the hand-written gradients overwrite theirs, also inside the timed call). */
static __attribute__((unused)) void bench_zero(double *p, size_t n) { memset(p, 0, n * sizeof(double)); }

#endif
