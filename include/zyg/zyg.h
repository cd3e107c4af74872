/* zyg.h: zyg's C API (README.md, "The C API").
 *
 * Requests: a call to a function whose name contains `__zyg_autodiff` (or Enzyme's
 * `__enzyme_autodiff`) asks zyg for a gradient; `__zyg_augmentfwd` and `__zyg_reverse` for
 * the halves of split mode, `__zyg_augmentsize` for the size of its tape. Declare a variant
 * of your own for other result types (a struct of gradients):
 * `typedef struct { double dx, dy; } grad2; grad2 __zyg_autodiff2(void *, ...);`.
 *
 * Registrations keep their meaning under clang -O2/-O3 only if the optimiser leaves the
 * registered function's calls alone: it inlines small functions, and replaces the calls of
 * functions it can see through (one that returns its argument, or a constant). Declare such
 * a function with ZYG_KEEP before its definition:
 *
 *     ZYG_KEEP double clip(double x);
 *     double clip(double x) { return x; }
 *     double d_clip(double x, double dret) { return fmin(fmax(dret, -1), 1); }
 *     ZYG_PULLBACK(clip, d_clip);
 *
 * ZYG_KEEP is noinline and optnone (so that clang neither inlines it nor infers what it
 * returns) and an annotation by which zyg recognises it: zyg's output drops noinline and
 * optnone again, so the function is optimised and inlined like any other once the
 * gradients are in place. The registration macros mark their globals `used`, so that a
 * `static` registration survives -O2 too.
 */
#ifndef ZYG_ZYG_H
#define ZYG_ZYG_H

#ifdef __cplusplus
extern "C" {
#endif

/* Activity markers: put one before an argument. */
extern int zyg_out, zyg_const, zyg_dup, zyg_dupnoneed;
extern int enzyme_out, enzyme_const, enzyme_dup, enzyme_dupnoneed;
/* Flags of a whole request. */
extern int enzyme_const_return;    /* the result gets no seed: only outputs through memory count */
extern int enzyme_active_return;   /* a struct result: every float seeded with 1 */
extern int enzyme_noret;           /* the result is not needed (zyg computes it anyway) */
extern int enzyme_not_overwritten; /* accepted: zyg saves what the function overwrites */
/* `zyg_tape_budget, (size_t)BYTES`: keep this request's tape small (zyg grad --tape-budget). */
extern int zyg_tape_budget;
/* Split mode with the tape in memory the caller allocated: `enzyme_allocated, SIZE,
 * enzyme_tape, PTR` among both halves' arguments, SIZE the bytes `__zyg_augmentsize`
 * (or `__enzyme_augmentsize`) gives for the function and the same activity markers. */
extern int enzyme_allocated, enzyme_tape, zyg_allocated, zyg_tape;

/* Entry points. */
double __zyg_autodiff(void *, ...);
float __zyg_autodiff_float(void *, ...);
void __zyg_autodiff_void(void *, ...);
void *__zyg_augmentfwd(void *, ...);
double __zyg_reverse(void *, ...);
void __zyg_reverse_void(void *, ...);
__SIZE_TYPE__ __zyg_augmentsize(void *, ...);

/* Frees the tape memory the calling thread keeps for its next gradients. The gradients'
 * tapes grow in 64 KiB chunks; a thread keeps the chunks its gradients gave back, up to
 * 64 MiB, so that the next gradient finds its tape's memory ready, and frees them when it
 * exits. This frees them now (they are allocated again as needed). It releases the caches
 * of the gradients of the file (the module zyg fills in) it is called in; in a program
 * whose gradients are in several files, call it in each. zyg fills it in. */
void __zyg_release_tape_cache(void);

#ifdef __cplusplus
}
#endif

/* Keeps a function's calls intact for zyg (see above). Put it on a declaration before the
 * definition, or on the definition itself. */
#define ZYG_KEEP __attribute__((noinline, optnone, annotate("zyg_keep")))

#define ZYG_CAT_(a, b) a##b
#define ZYG_CAT(a, b) ZYG_CAT_(a, b)
#define ZYG_REGISTRATION_(prefix, f) __attribute__((used)) static void *ZYG_CAT(prefix, f)

/* A derivative for f: pullback(args..., [dret]) returns the adjoints of f's float
 * arguments (one value, or a struct of them) and adds into the shadows of its pointers. */
#define ZYG_PULLBACK(f, pullback) ZYG_REGISTRATION_(__zyg_pullback_, f)[2] = {(void *)(f), (void *)(pullback)}
/* Enzyme's form: {f, augmented forward, reverse}. */
#define ZYG_GRADIENT(f, augmented, reverse) \
    ZYG_REGISTRATION_(__enzyme_register_gradient_, f)[3] = {(void *)(f), (void *)(augmented), (void *)(reverse)}
/* Calls to f carry no derivative: its result is inactive, its arguments get no adjoint
 * from it, and what it does to memory is not differentiated. */
#define ZYG_INACTIVE(f) ZYG_REGISTRATION_(__enzyme_inactivefn_, f) = (void *)(f)
/* Global variable g is never differentiated (it gets no shadow). */
#define ZYG_INACTIVE_GLOBAL(g) ZYG_REGISTRATION_(__enzyme_inactive_global_, g) = (void *)&(g)
/* Calls to f are differentiated with the rule of math function `name` ("log1p"). */
#define ZYG_FUNCTION_LIKE(f, name) ZYG_REGISTRATION_(__enzyme_function_like_, f)[2] = {(void *)(f), (void *)(name)}
/* alloc allocates memory of the size (in bytes) of its argument `size_arg`; dealloc frees
 * it, taking the arguments listed in `dealloc_args` ("-1" is alloc's result, "-1,0" its
 * result then alloc's first argument). Its memory gets a shadow as malloc's does. */
#define ZYG_ALLOCATION_LIKE(alloc, size_arg, dealloc_args, dealloc)                                 \
    ZYG_REGISTRATION_(__enzyme_allocation_like_, alloc)[4] = {(void *)(alloc), (void *)(__UINTPTR_TYPE__)(size_arg), \
                                                              (void *)(dealloc_args), (void *)(dealloc)}

#endif
