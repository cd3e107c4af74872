// BUG reproducer (forward mode): a helper returning a small struct by value ({double,double}
// in registers) at clang -O0. The caller's scratch slot for the callee's returned shadow is
// `alloca ptr` (8 bytes) while a 16-byte { double, double } shadow is stored into it; after
// zyg's pipeline the whole tangent function folds to `ret double undef`.
//   clang-22 -O0 -S -emit-llvm fwd_struct_return.c -o r.ll && zyg grad r.ll -o r.grad.ll \
//     && clang-22 r.grad.ll -o r.exe && ./r.exe
// prints `forward -nan (want 4)` (or garbage); `zyg grad -O 0` shows `%4 = alloca ptr` in
// f.zyg.fwd.a receiving `store { double, double }`. Reverse mode of the same f is right.
#include <stdio.h>
double __enzyme_fwddiff(void *, ...);
double __enzyme_autodiff(void *, ...);
typedef struct { double x, y; } vec2;
static vec2 pair(double a) { vec2 r = {a, 3 * a}; return r; }
static double f(double s) {
    vec2 r = pair(s);
    return r.x + r.y;
}
int main(void) {
    printf("forward %g (want 4)\n", __enzyme_fwddiff((void *)f, 2.0, 1.0));
    printf("reverse %g (want 4)\n", __enzyme_autodiff((void *)f, 2.0));
    return 0;
}
/* The same with C's `double complex` (returned as { double, double }):
 *   static double complex cmul(double complex a, double complex b) { return a * b; }
 *   static double g(double s) { double complex z = cmul(s + 2.0 * I, 1.0 - s * I); return creal(z) + cimag(z); }
 *   __enzyme_fwddiff((void *)g, 2.0, 1.0) gives -nan at clang -O0 (want -1); right at -O2,
 *   where clang inlines cmul before zyg sees it. A { float, float } (<2 x float>, 8 bytes),
 *   a { double, i32 } and a 24-byte sret struct come out right. */
