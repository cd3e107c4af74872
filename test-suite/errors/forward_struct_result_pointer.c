// `__enzyme_fwddiff` of a function whose struct result holds a pointer is refused, naming
// the function and the type (a struct of floats and integers works:
// e2e/forward_struct_results.c); nothing is written.
// RUN: rm -f %t.out.ll
// RUN: %clang -O2 -S -emit-llvm %s -o %t.ll
// RUN: not %zyg grad %t.ll -o %t.out.ll 2>&1 | FileCheck %s
// RUN: not test -e %t.out.ll
// CHECK: zyg: error: {{.*}}.ll: in `main`: `f` returns `{ double, ptr }`, which holds pointers; forward mode returns the tangent of a result of floats and integers only so far
typedef struct { double v; double *at; } found;
found __enzyme_fwddiff(void *, ...);

static found f(double *xs, double s) {
    found r = {xs[0] * s, xs + 1};
    return r;
}

extern int enzyme_dup;
int main(void) {
    double xs[2] = {1, 2}, dxs[2] = {1, 0};
    found t = __enzyme_fwddiff((void *)f, enzyme_dup, xs, dxs, 2.0, 0.0);
    return t.v != 2.0;
}
