// BUG reproducer (forward and reverse mode): at clang -O2, inlining a function with `restrict`
// parameters leaves `call void @llvm.experimental.noalias.scope.decl(metadata !N)` in the
// caller; zyg refuses it ("type `metadata` is not supported yet (in the function to
// differentiate)"), in forward mode AND in reverse mode (drop the __enzyme_fwddiff line:
// the __enzyme_autodiff request of twice_sum is refused the same way).
//   clang-22 -O2 -S -emit-llvm fwd_noalias_scope_decl.c -o n.ll && zyg grad n.ll -o n.grad.ll
// zyg: error: n.ll: in function `twice`: type `metadata` is not supported yet (in the
// function to differentiate)
//     tail call void @llvm.experimental.noalias.scope.decl(metadata !11)
#include <stdio.h>
extern int enzyme_dup, enzyme_const;
double __enzyme_fwddiff(void *, ...);
double __enzyme_autodiff(void *, ...);
static void step(double *restrict out, const double *restrict in, int n) {
    for (int i = 0; i < n; i++) out[i] = in[i] * in[i];
}
static void twice(double *u, double *w, int n) {
    step(w, u, n);
    step(u, w, n);
}
static double twice_sum(double *u, double *w, int n) {
    twice(u, w, n);
    double s = 0;
    for (int i = 0; i < n; i++) s += u[i];
    return s;
}
int main(void) {
    double u[2] = {1.5, 2.0}, du[2] = {1, 0}, w[2], dw[2];
    /* u0 -> u0^4: tangent 4 u0^3 = 13.5 */
    __enzyme_fwddiff((void *)twice, enzyme_dup, u, du, enzyme_dup, w, dw, enzyme_const, 2);
    printf("forward du[0] = %g (want 13.5)\n", du[0]);
    double v[2] = {1.5, 2.0}, gv[2] = {0, 0}, x[2], gx[2] = {0, 0};
    __enzyme_autodiff((void *)twice_sum, enzyme_dup, v, gv, enzyme_dup, x, gx, enzyme_const, 2);
    printf("reverse d(sum)/du[0] = %g (want 13.5)\n", gv[0]);
    return 0;
}
