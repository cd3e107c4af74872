// `zyg grad --fn f --mode forward --width 3 --header`: vector mode's export, three tangents
// per call: each float followed by three tangents, each pointer by three shadows, the
// result's three tangents through `struct f_fwd_tangents *`, the first argument. Used by a
// program compiled against the header; each lane against central differences, at -O0 and
// -O2. `--width` without forward mode is a usage error.
// RUN: %clang -O0 -g -S -emit-llvm %s -o %t.O0.ll
// RUN: %zyg grad %t.O0.ll -o %t.O0.out.ll --fn model --mode forward --width 3 --header %t.O0.h
// RUN: FileCheck %s --check-prefix=HEADER < %t.O0.h
// RUN: %clang -O2 -g -S -emit-llvm %s -o %t.O2.ll
// RUN: %zyg grad %t.O2.ll -o %t.O2.out.ll --fn model --mode forward --width 3 --header %t.O2.h
// RUN: %clang -DUSE_HEADER -include %t.O0.h -I %include %s %t.O0.out.ll -lm -o %t.O0.exe
// RUN: %t.O0.exe | FileCheck %s
// RUN: %clang -DUSE_HEADER -include %t.O2.h -I %include %s %t.O2.out.ll -lm -o %t.O2.exe
// RUN: %t.O2.exe | FileCheck %s
// RUN: not %zyg grad %t.O0.ll -o %t.rev.ll --fn model --width 2 2>&1 | FileCheck %s --check-prefix=REVERSE
// HEADER: struct model_fwd_tangents {
// HEADER-NEXT: double d[3];
// HEADER: void model_fwd(struct model_fwd_tangents *out, void *arg0, void *d_arg0_0, void *d_arg0_1, void *d_arg0_2, double arg1, double d_arg1_0, double d_arg1_1, double d_arg1_2, int32_t arg2);
// REVERSE: zyg: error: {{.*}}--width 2 asks for vector mode, which zyg supports with --mode forward only so far
// CHECK-NOT: FAIL
// CHECK: ALL OK
#ifndef USE_HEADER
#include <math.h>
double model(const double *x, double k, int n) {
    double s = 0;
    for (int i = 0; i < n; i++) s += sin(k * x[i]) * x[i];
    return s * k;
}
#else
#include "zyg_check.h"
double model(const double *x, double k, int n);
int main(void) {
    double x[4] = {0.4, -1.1, 2.3, 0.7};
    double dx[3][4] = {{1, 0, 0, 0}, {0.3, 0.2, -0.5, 1.0}, {0, 0, 0, 0}}, dk[3] = {0.0, 0.8, 1.0};
    struct model_fwd_tangents t;
    model_fwd(&t, x, dx[0], dx[1], dx[2], 1.5, dk[0], dk[1], dk[2], 4);
    for (int l = 0; l < 3; l++) {
        double h = 1e-6, xp[4], xm[4];
        for (int i = 0; i < 4; i++) {
            xp[i] = x[i] + h * dx[l][i];
            xm[i] = x[i] - h * dx[l][i];
        }
        check_close("model along lane", t.d[l], (model(xp, 1.5 + h * dk[l], 4) - model(xm, 1.5 - h * dk[l], 4)) / (2 * h), FD_RTOL, FD_ATOL);
    }
    return zyg_report();
}
#endif
