// A forward registration whose function does not take what zyg passes (each argument, a
// tangent after each float and pointer) or returns neither the tangent nor {result,
// tangent} is an error naming both functions and what zyg expected; nothing is written.
// RUN: rm -f %t.out.ll %t.ret.ll
// RUN: %clang -O0 -g -S -emit-llvm %s -o %t.ll
// RUN: not %zyg grad %t.ll -o %t.out.ll 2>&1 | FileCheck %s --check-prefix=PARAMS
// RUN: not test -e %t.out.ll
// RUN: %clang -O0 -g -DWRONG_RESULT -S -emit-llvm %s -o %t.r.ll
// RUN: not %zyg grad %t.r.ll -o %t.ret.ll 2>&1 | FileCheck %s --check-prefix=RESULT
// RUN: not test -e %t.ret.ll
// PARAMS: zyg: error: {{.*}}: in function `f` at {{.*}}forward_custom_signature.c:{{[0-9]+}}
// PARAMS-SAME: the registered forward derivative `d_scale` of `scale` takes 2 parameters, but zyg passes 4
// RESULT: the registered forward derivative `d_scale` of `scale` returns float; it must return the tangent of the result (double) or the result and its tangent ({ double, double })
double scale(double x, const double *s) { return x * s[0]; }
#ifdef WRONG_RESULT
float d_scale(double x, double dx, const double *s, const double *ds) { return (float)(dx * s[0]); }
#else
double d_scale(double x, double dx) { return dx; }
#endif
void *__enzyme_register_derivative_scale[2] = {(void *)scale, (void *)d_scale};
double __enzyme_fwddiff(void *, ...);
extern int enzyme_dup;
double f(double x, const double *s) { return scale(x, s) * 2.0; }
double df(double x, const double *s, const double *ds) { return __enzyme_fwddiff((void *)f, x, 1.0, enzyme_dup, s, ds); }
