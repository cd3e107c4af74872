// Exported gradients through the plugin, as `zyg grad --fn` exports them: from clang with
// `-mllvm -zyg-fn=...` (the same flags on every file of the program: the file that defines
// the function exports it, the others are left alone), and from opt's pipeline text
// `zyg-grad<fn=...;args=...;name=...;header=...>`. A program compiled against the written
// header checks the gradients against closed forms at -O0 and -O2. Bad options and unknown
// functions are refused.
// RUN: %clang -O0 -fpass-plugin=%plugin -mllvm -zyg-fn=scaled_square -mllvm -zyg-args=out,const -mllvm -zyg-fn=log_sum -mllvm -zyg-args=dup,const -mllvm -zyg-header=%t.O0.h -c %s -o %t.O0.model.o
// RUN: FileCheck %s --check-prefix=HEADER < %t.O0.h
// RUN: %clang -O0 -fpass-plugin=%plugin -mllvm -zyg-fn=scaled_square -mllvm -zyg-args=out,const -mllvm -zyg-fn=log_sum -mllvm -zyg-args=dup,const -DUSE_HEADER -include %t.O0.h -I %include -c %s -o %t.O0.main.o
// RUN: %clang %t.O0.main.o %t.O0.model.o -lm -o %t.O0.exe && %t.O0.exe | FileCheck %s
// RUN: %clang -O2 -fpass-plugin=%plugin -mllvm -zyg-fn=scaled_square -mllvm -zyg-args=out,const -mllvm -zyg-fn=log_sum -mllvm -zyg-args=dup,const -mllvm -zyg-header=%t.O2.h -c %s -o %t.O2.model.o
// RUN: %clang -O2 -DUSE_HEADER -include %t.O2.h -I %include %s %t.O2.model.o -lm -o %t.O2.exe && %t.O2.exe | FileCheck %s
//
// RUN: %clang -O1 -S -emit-llvm %s -o %t.ll
// RUN: %opt -load-pass-plugin=%plugin -passes='zyg-grad<fn=scaled_square;args=out:const;name=sq_grad;fn=log_sum;args=dup:const;name=ls_grad;header=%t.opt.h>,default<O2>' %t.ll -o %t.opt.bc
// RUN: FileCheck %s --check-prefix=NAMED < %t.opt.h
// RUN: %clang -DUSE_HEADER -DRENAMED -include %t.opt.h -I %include %s %t.opt.bc -lm -o %t.opt.exe && %t.opt.exe | FileCheck %s
//
// RUN: not %opt -load-pass-plugin=%plugin -passes='zyg-grad<fn=no_such_function>' %t.ll -o /dev/null 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not %opt -load-pass-plugin=%plugin -passes='zyg-grad<fn=log_sum;colour=red>' %t.ll -o /dev/null 2>&1 | FileCheck %s --check-prefix=OPTION
// RUN: not %opt -load-pass-plugin=%plugin -passes='zyg-grad<fn=log_sum;args=out;args=dup>' %t.ll -o /dev/null 2>&1 | FileCheck %s --check-prefix=COUNT
// HEADER: double scaled_square_grad(double arg0, double arg1);
// HEADER: void log_sum_grad(void *arg0, void *d_arg0, int32_t arg1);
// NAMED: double sq_grad(double arg0, double arg1);
// NAMED: void ls_grad(void *arg0, void *d_arg0, int32_t arg1);
// MISSING: zyg: error: {{.*}}exports.c: --fn `no_such_function`: no function of that name
// MISSING: error: zyg: no gradient was written
// OPTION: zyg: error: the plugin's options (`fn=log_sum;colour=red`): unknown option `colour`
// COUNT: zyg: error: --args is given 2 times for 1 --fn
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
