// Vector mode's refusals: each names the request and what to do; nothing is written.
// RUN: rm -f %t.out.ll
// RUN: %clang -O0 -g -DCASE=1 -S -emit-llvm %s -o %t.1.ll
// RUN: not %zyg grad %t.1.ll -o %t.out.ll 2>&1 | FileCheck %s --check-prefix=GLOBAL
// RUN: %clang -O0 -g -DCASE=2 -S -emit-llvm %s -o %t.2.ll
// RUN: not %zyg grad %t.2.ll -o %t.out.ll 2>&1 | FileCheck %s --check-prefix=RUNTIME
// RUN: %clang -O0 -g -DCASE=3 -S -emit-llvm %s -o %t.3.ll
// RUN: not %zyg grad %t.3.ll -o %t.out.ll 2>&1 | FileCheck %s --check-prefix=FEW
// RUN: %clang -O0 -g -DCASE=4 -S -emit-llvm %s -o %t.4.ll
// RUN: not %zyg grad %t.4.ll -o %t.out.ll 2>&1 | FileCheck %s --check-prefix=TWICE
// RUN: %clang -O0 -g -DCASE=5 -S -emit-llvm %s -o %t.5.ll
// RUN: not %zyg grad %t.5.ll -o %t.out.ll 2>&1 | FileCheck %s --check-prefix=STRIDE
// RUN: %clang -O0 -g -DCASE=6 -S -emit-llvm %s -o %t.6.ll
// RUN: not %zyg grad %t.6.ll -o %t.out.ll 2>&1 | FileCheck %s --check-prefix=RESULT
// RUN: %clang -O0 -g -DCASE=7 -S -emit-llvm %s -o %t.7.ll
// RUN: not %zyg grad %t.7.ll -o %t.out.ll 2>&1 | FileCheck %s --check-prefix=RGLOBAL
// RUN: %clang -O0 -g -DCASE=8 -S -emit-llvm %s -o %t.8.ll
// RUN: not %zyg grad %t.8.ll -o %t.out.ll 2>&1 | FileCheck %s --check-prefix=RONE
// RUN: %clang -O0 -g -DCASE=9 -S -emit-llvm %s -o %t.9.ll
// RUN: not %zyg grad %t.9.ll -o %t.out.ll 2>&1 | FileCheck %s --check-prefix=RCUSTOM
// RUN: not test -e %t.out.ll
extern int enzyme_width, enzyme_dup, enzyme_dupv, enzyme_const;
typedef struct { double d[2]; } t2;
t2 __enzyme_fwddiff(void *, ...);
t2 __enzyme_autodiff2(void *, ...) __asm__("__enzyme_autodiff");
double __enzyme_autodiff(void *, ...);
__attribute__((noinline)) double mystery(double x) { return 3 * x; }
double d_mystery(double x, double dret) { return dret * 3 + 0 * x; }
void *__zyg_pullback_mystery[2] = {(void *)mystery, (void *)d_mystery};
double through_rule(double x) { return mystery(x) * x; }
double state[2];
double uses_global(double x) {
    state[0] = x * x;
    return state[0] * state[1];
}
double f(double x, double y) { return x * y; }
double g(const double *x) { return x[0] * x[1]; }
int main(int argc, char **argv) {
    (void)argv;
    double x = 1, y = 2, xs[2] = {1, 2}, dxs[2][2] = {{1, 0}, {0, 1}};
    t2 t;
    (void)xs, (void)dxs, (void)y;
#if CASE == 1
    // GLOBAL: zyg: error: {{.*}}in function `uses_global`: vector mode (`enzyme_width`) over a function that uses differentiated global variables is not supported yet
    t = __enzyme_fwddiff((void *)uses_global, enzyme_width, 2, x, 1.0, 0.5);
#elif CASE == 2
    // RUNTIME: in `main` at {{.*}}vector_mode_refused.c:[[@LINE+1]]:{{[0-9]+}}: `enzyme_width` must be followed by an integer constant from 1 to 64
    t = __enzyme_fwddiff((void *)f, enzyme_width, argc, x, 1.0, y, 1.0);
#elif CASE == 3
    // FEW: in `main` at {{.*}}vector_mode_refused.c:[[@LINE+1]]:{{[0-9]+}}: parameter 1 of `f` is a float, and vector mode of width 2 takes 2 tangents after it, but 1 follow it
    t = __enzyme_fwddiff((void *)f, enzyme_width, 2, x, 1.0, 0.0, y, 1.0);
#elif CASE == 4
    // TWICE: in `main` at {{.*}}vector_mode_refused.c:[[@LINE+1]]:{{[0-9]+}}: `enzyme_width` is given twice
    t = __enzyme_fwddiff((void *)f, enzyme_width, 2, enzyme_width, 2, x, 1.0, 0.0, y, 1.0, 0.0);
#elif CASE == 5
    // STRIDE: in `main` at {{.*}}vector_mode_refused.c:[[@LINE+1]]:{{[0-9]+}}: `enzyme_dupv` before parameter 0 of `g` must be followed by the byte stride, an integer
    t = __enzyme_fwddiff((void *)g, enzyme_width, 2, enzyme_dupv, xs, dxs);
#elif CASE == 6
    // RESULT: in `main` at {{.*}}vector_mode_refused.c:[[@LINE+1]]:{{[0-9]+}}: the request's result `{ double, double }` holds 2 values but there are 3 tangents
    t = __enzyme_fwddiff((void *)f, enzyme_width, 3, x, 1.0, 0.0, 0.0, y, 0.0, 1.0, 0.0);
#elif CASE == 7
    // RGLOBAL: zyg: error: {{.*}}in function `uses_global`: vector mode (`enzyme_width`) in reverse mode over a function that uses differentiated global variables is not supported yet; pass the global's memory as a `dup` argument
    t = __enzyme_autodiff2((void *)uses_global, enzyme_width, 2, x);
#elif CASE == 8
    // RONE: in `main` at {{.*}}vector_mode_refused.c:[[@LINE+1]]:{{[0-9]+}}: the request returns one `double` but has 2 gradients (one per lane of each `out` argument); declare it to return a struct of 2
    t.d[0] = __enzyme_autodiff((void *)f, enzyme_width, 2, x, enzyme_const, y);
#elif CASE == 9
    // RCUSTOM: zyg: error: {{.*}}in function `through_rule`{{.*}}: vector mode (`enzyme_width`) in reverse mode through a registered derivative is not supported yet; make one request per direction (without `enzyme_width`)
    t = __enzyme_autodiff2((void *)through_rule, enzyme_width, 2, x);
#endif
    return (int)t.d[0];
}
