// A global passed as the `dup` argument that the function also uses by name: its adjoint
// would be split between the shadow passed and the global's own shadow (the gradient came
// out as 1, not 6). zyg refuses at the request and says what to do.
// RUN: rm -f %t.out.ll
// RUN: %clang -O0 -g -S -emit-llvm %s -o %t.O0.ll
// RUN: not %zyg grad %t.O0.ll -o %t.out.ll 2>&1 | FileCheck %s
// RUN: %clang -O2 -g -S -emit-llvm %s -o %t.O2.ll
// RUN: not %zyg grad %t.O2.ll -o %t.out.ll 2>&1 | FileCheck %s
// RUN: not test -e %t.out.ll
// CHECK: in `df` at {{.*}}globals_dup_alias_refused.c:[[@LINE+7]]:{{[0-9]+}}: the global `g` is passed as a `dup` argument and `f` also uses it by name
// CHECK-SAME: pass a copy of it, or do not pass it and read `__zyg_shadow_g`
extern int enzyme_dup;
double __enzyme_autodiff(void *, ...);
double g[1] = {3.0};
double f(double *s) { g[0] = g[0] * g[0]; return s[0]; }
double df(double *ds) {
    return __enzyme_autodiff((void *)f, enzyme_dup, g, ds);
}
