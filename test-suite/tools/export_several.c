// `zyg grad` with several `--fn`: one run exports the gradients of two functions (with
// their own `--args` and `--name`, the n-th for the n-th `--fn`) and writes both
// prototypes into one header, used by a program compiled against it; the gradients against
// closed forms and central differences at -O0 and -O2. A count of `--args` that does not
// match the `--fn`s is refused before any work.
// RUN: %clang -O0 -g -S -emit-llvm %s -o %t.O0.ll
// RUN: %zyg grad %t.O0.ll -o %t.O0.out.ll --fn scaled_square --args out,const --fn log_sum --args dup,const --header %t.O0.h
// RUN: FileCheck %s --check-prefix=HEADER < %t.O0.h
// RUN: %clang -DUSE_HEADER -include %t.O0.h -I %include %s %t.O0.out.ll -lm -o %t.O0.exe
// RUN: %t.O0.exe | FileCheck %s
// RUN: %clang -O2 -g -S -emit-llvm %s -o %t.O2.ll
// RUN: %zyg grad %t.O2.ll -o %t.O2.out.ll --fn scaled_square --args out,const --name sq_grad --fn log_sum --args dup,const --name ls_grad --header %t.O2.h
// RUN: FileCheck %s --check-prefix=NAMED < %t.O2.h
// RUN: %clang -DUSE_HEADER -DRENAMED -include %t.O2.h -I %include %s %t.O2.out.ll -lm -o %t.O2.exe
// RUN: %t.O2.exe | FileCheck %s
// RUN: not %zyg grad %t.O2.ll -o %t.bad.ll --fn scaled_square --fn log_sum --args out,const 2>&1 | FileCheck %s --check-prefix=COUNT
// RUN: not test -e %t.bad.ll
// HEADER: double scaled_square_grad(double arg0, double arg1);
// HEADER: void log_sum_grad(void *arg0, void *d_arg0, int32_t arg1);
// NAMED: double sq_grad(double arg0, double arg1);
// NAMED: void ls_grad(void *arg0, void *d_arg0, int32_t arg1);
// COUNT: zyg: error: --args is given once for 2 --fn: give it once per --fn, in the same order
// CHECK-NOT: FAIL
// CHECK: ALL OK
#ifndef USE_HEADER
#include <math.h>
double scaled_square(double x, double k) { return k * x * x; }
double log_sum(const double *x, int n) {
    double s = 0;
    for (int i = 0; i < n; i++)
        s += log(1 + x[i] * x[i]);
    return s;
}
#else
#include "zyg_check.h"
#ifdef RENAMED
#define scaled_square_grad sq_grad
#define log_sum_grad ls_grad
#endif
int main(void) {
    for (int p = 0; p < 3; p++) {
        double x = 0.4 + 0.7 * p, k = 1.5 - p;
        check_close("d scaled_square / dx", scaled_square_grad(x, k), 2 * k * x, 1e-12, 1e-12);
        double v[4], dv[4] = {0};
        for (int i = 0; i < 4; i++)
            v[i] = 0.3 * i - 0.5 + 0.2 * p;
        log_sum_grad(v, dv, 4);
        for (int i = 0; i < 4; i++)
            check_close("d log_sum / dx_i", dv[i], 2 * v[i] / (1 + v[i] * v[i]), 1e-12, 1e-12);
    }
    return zyg_report();
}
#endif
