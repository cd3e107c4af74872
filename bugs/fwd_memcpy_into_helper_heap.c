// Refusal (documented category, but over-conservative): at clang -O0, a memcpy whose
// destination is heap memory a helper allocated and returned is refused in forward mode
// ("memory call into memory whose shadow may be null"), although the helper's malloc always
// has a shadow; reverse mode handles it, and so does forward mode at -O2 (helper inlined) or
// when the helper's buffer is only memcpy's source.
//   clang-22 -O0 -S -emit-llvm fwd_memcpy_into_helper_heap.c -o h.ll && zyg grad h.ll -o h.grad.ll
// zyg: error: h.ll: in function `f`: forward mode does not handle a memory call into memory
// whose shadow may be null yet; use reverse mode
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
double __enzyme_fwddiff(void *, ...);
double __enzyme_autodiff(void *, ...);
extern int enzyme_const;
static double *make(double s, int n) {
    double *r = malloc(n * sizeof(double));
    for (int i = 0; i < n; i++) r[i] = s * i;
    return r;
}
static double f(double s, int n) {
    double *a = make(s, n);
    double *b = make(s * s, n);
    memcpy(a, b, n * sizeof(double)); /* a = s^2 * i */
    double e = 0;
    for (int i = 0; i < n; i++) e += a[i];
    free(b);
    free(a);
    return e;
}
int main(void) {
    /* e = s^2 * (0+1+2+3) = 6 s^2; de/ds = 12 s */
    printf("forward %g reverse %g (want 24)\n", __enzyme_fwddiff((void *)f, 2.0, 1.0, enzyme_const, 4),
           __enzyme_autodiff((void *)f, 2.0, enzyme_const, 4));
    return 0;
}
