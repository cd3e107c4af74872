// A helper returning two pointers into differentiated memory in a struct (as
// std::minmax_element returns a pair): no function passes shadows of struct values yet, and
// the path through the pointers was lost (a gradient of 0). zyg refuses where the pointer
// would leave in the struct.
// RUN: rm -f %t.out.ll
// RUN: %clang -O0 -g -S -emit-llvm %s -o %t.O0.ll
// RUN: not %zyg grad %t.O0.ll -o %t.out.ll 2>&1 | FileCheck %s
// RUN: %clang -O2 -g -S -emit-llvm %s -o %t.O2.ll
// RUN: not %zyg grad %t.O2.ll -o %t.out.ll 2>&1 | FileCheck %s
// RUN: not test -e %t.out.ll
// CHECK: in function `minmax` at {{.*}}aggregate_pointers_refused.c:{{[0-9]+}}:{{[0-9]+}}: this returns a struct value holding a pointer to differentiated memory; zyg passes no shadows of struct values between functions yet
extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
struct range { double *lo, *hi; };
__attribute__((noinline)) static struct range minmax(double *x, int n) {
    struct range r = {x, x};
    for (int i = 1; i < n; i++) {
        if (x[i] < *r.lo)
            r.lo = &x[i];
        if (x[i] > *r.hi)
            r.hi = &x[i];
    }
    return r;
}
double f(double *x, int n) {
    struct range r = minmax(x, n);
    return *r.hi * *r.hi - 3 * *r.lo;
}
double df(double *x, double *dx) { return __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, 4); }
