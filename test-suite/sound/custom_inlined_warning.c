// A registered function clang inlined before zyg saw the module: its rule cannot apply, and
// zyg says so (it differentiates the inlined body). With -g zyg names the place it was
// inlined; without debug info, it says that no call to it is left. A function returning a
// constant on every path has its calls' results replaced even when it is kept out of line.
// RUN: %clang -O2 -g -S -emit-llvm %s -o %t.g.ll
// RUN: %zyg grad %t.g.ll -o %t.g.out.ll 2>&1 | FileCheck %s --check-prefix=DEBUG
// RUN: %clang -O2 -S -emit-llvm %s -o %t.ll
// RUN: %zyg grad %t.ll -o %t.out.ll 2>&1 | FileCheck %s --check-prefix=NODEBUG
// RUN: %clang -O0 -g -S -emit-llvm %s -o %t.O0.ll
// RUN: %zyg grad %t.O0.ll -o %t.O0.out.ll 2>&1 | FileCheck %s --check-prefix=O0 --allow-empty
// NODEBUG: zyg: warning: {{.*}}.ll: `level` has a registered derivative, but it returns `4` on every path, so the compiler replaces the results of its calls by that constant (even with `ZYG_KEEP`) and its registered derivative is not used for them
// NODEBUG: zyg: warning: {{.*}}.ll: `square` has a registered derivative, but no call to it is left in this module: if the compiler inlined it or replaced its calls' results in the code zyg differentiates, its registered derivative is not used there; declare it with `ZYG_KEEP` from zyg.h (noinline and optnone) before its definition
// O0-NOT: warning: {{.*}}`square`
double __enzyme_autodiff(void *, ...);

double square(double x) { return x * x; }
double d_square(double x, double dret) { return 3 * x * dret; }
void *__zyg_pullback_square[2] = {(void *)square, (void *)d_square};

__attribute__((noinline)) double level(double x) {
    (void)x;
    return 4.0;
}
double d_level(double x, double dret) { return x * dret; }
void *__zyg_pullback_level[2] = {(void *)level, (void *)d_level};

double model(double x, int n) {
    double s = 0;
    for (int i = 0; i < n; i++)
        // DEBUG: zyg: warning: {{.*}}.g.ll: in function `model` at {{.*}}custom_inlined_warning.c:[[@LINE+2]]:{{[0-9]+}}: `square` has a registered derivative, but the compiler inlined it here, so its registered derivative is not used there; declare it with `ZYG_KEEP` from zyg.h (noinline and optnone) before its definition
        // DEBUG: zyg: warning: {{.*}}.g.ll: `level` has a registered derivative, but it returns `4` on every path
        s += square(x * i) + level(x) * x;
    return s;
}
double dmodel(double x) { return __enzyme_autodiff((void *)model, x, 3); }
