// BLAS and LAPACK calls zyg refuses, each naming the call and what to do; nothing is
// written. A BLAS function without a rule (cblas_dsyrk) is a function without a body;
// a derivative written into an array passed `const` would be lost; a layout that is no
// CBLAS layout; a declaration with 64-bit integers (an ILP64 build); vector mode.
// RUN: rm -f %t.*.out.ll
// RUN: %clang -O0 -DCASE=1 -S -emit-llvm %s -o %t.1.ll
// RUN: not %zyg grad %t.1.ll -o %t.1.out.ll 2>&1 | FileCheck --check-prefix=NORULE %s
// RUN: not test -e %t.1.out.ll
// RUN: %clang -O2 -DCASE=2 -S -emit-llvm %s -o %t.2.ll
// RUN: not %zyg grad %t.2.ll -o %t.2.out.ll 2>&1 | FileCheck --check-prefix=UNTRACED %s
// RUN: not test -e %t.2.out.ll
// RUN: %clang -O0 -DCASE=3 -S -emit-llvm %s -o %t.3.ll
// RUN: not %zyg grad %t.3.ll -o %t.3.out.ll 2>&1 | FileCheck --check-prefix=LAYOUT %s
// RUN: %clang -O0 -DCASE=4 -S -emit-llvm %s -o %t.4.ll
// RUN: not %zyg grad %t.4.ll -o %t.4.out.ll 2>&1 | FileCheck --check-prefix=ILP64 %s
// RUN: %clang -O0 -DCASE=5 -S -emit-llvm %s -o %t.5.ll
// RUN: not %zyg grad %t.5.ll -o %t.5.out.ll 2>&1 | FileCheck --check-prefix=WIDTH %s
// NORULE: zyg: error: {{.*}}`cblas_dsyrk`
// UNTRACED: zyg: error: {{.*}}`cblas_daxpy`: a derivative is written into an array zyg cannot trace (memory a `const` argument reaches); pass that array with `enzyme_dup` and a shadow
// LAYOUT: zyg: error: {{.*}}`cblas_dgemv`: argument 1 is the layout (CblasRowMajor or LAPACK_ROW_MAJOR 101, CblasColMajor or LAPACK_COL_MAJOR 102), and 103 is none of them
// ILP64: zyg: error: {{.*}}`cblas_ddot`: zyg's rule expects the declaration `double (i32, ptr, i32, ptr, i32)` of the reference CBLAS/LAPACKE headers with 32-bit integers; this one is `double (i64, ptr, i64, ptr, i64)`
// WIDTH: zyg: error: {{.*}}vector mode (`enzyme_width`) in reverse mode through a BLAS or LAPACK call is not supported yet; make one request per direction
extern int enzyme_dup, enzyme_const, enzyme_width;
double __enzyme_autodiff(void *, ...);
void cblas_dsyrk(int, int, int, int, int, double, const double *, int, double, double *, int);
void cblas_daxpy(int, double, const double *, int, double *, int);
void cblas_dgemv(int, int, int, int, double, const double *, int, const double *, int, double, double *, int);
double cblas_ddot(long, const double *, long, const double *, long);

#if CASE == 1
double f(double *a, double *c) {
    cblas_dsyrk(102, 122, 111, 2, 2, 1.0, a, 2, 0.0, c, 2);
    return c[0] + c[3];
}
double g(double *a, double *da, double *c, double *dc) { return __enzyme_autodiff((void *)f, enzyme_dup, a, da, enzyme_dup, c, dc); }
#elif CASE == 2
double f(double alpha, const double *x, double *y) {
    cblas_daxpy(3, alpha, x, 1, y, 1);
    return y[0];
}
double g(double alpha, double *x, double *y) { return __enzyme_autodiff((void *)f, alpha, enzyme_const, x, enzyme_const, y); }
#elif CASE == 3
double f(double *a, double *x, double *y) {
    cblas_dgemv(103, 111, 2, 2, 1.0, a, 2, x, 1, 0.0, y, 1);
    return y[0];
}
double g(double *a, double *da, double *x, double *y, double *dy) {
    return __enzyme_autodiff((void *)f, enzyme_dup, a, da, enzyme_const, x, enzyme_dup, y, dy);
}
#elif CASE == 4
double f(double *x, double *y) { return cblas_ddot(3, x, 1, y, 1); }
double g(double *x, double *dx, double *y) { return __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, y); }
#else
double f(double *x, double *y) {
    cblas_daxpy(2, 2.0, x, 1, y, 1);
    return y[0] * y[1];
}
double g(double *x, double *dx, double *dx2, double *y, double *dy, double *dy2) {
    return __enzyme_autodiff((void *)f, enzyme_width, 2, enzyme_dup, x, dx, dx2, enzyme_dup, y, dy, dy2);
}
#endif
