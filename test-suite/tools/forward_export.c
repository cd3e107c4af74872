// `zyg grad --fn f --mode forward --header`: the exported tangent function `f_fwd` (each
// float followed by its tangent, each pointer by its shadow) and its C prototype, used by a
// program compiled against the header; its results against central differences, at -O0 and
// -O2. The default export name in forward mode is `<fn>_fwd`.
// RUN: %clang -O0 -g -S -emit-llvm %s -o %t.O0.ll
// RUN: %zyg grad %t.O0.ll -o %t.O0.out.ll --fn model --mode forward --header %t.O0.h
// RUN: FileCheck %s --check-prefix=HEADER < %t.O0.h
// RUN: %clang -O2 -g -S -emit-llvm %s -o %t.O2.ll
// RUN: %zyg grad %t.O2.ll -o %t.O2.out.ll --fn model --mode forward --args dup,active,const --name model_tangent --header %t.O2.h
// RUN: %clang -DUSE_HEADER -include %t.O0.h -I %include %s %t.O0.out.ll -lm -o %t.O0.exe
// RUN: %t.O0.exe | FileCheck %s
// RUN: %clang -DUSE_HEADER -DRENAMED -include %t.O2.h -I %include %s %t.O2.out.ll -lm -o %t.O2.exe
// RUN: %t.O2.exe | FileCheck %s
// HEADER: double model_fwd(void *arg0, void *d_arg0, double arg1, double d_arg1, int32_t arg2);
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
#ifdef RENAMED
#define FWD model_tangent
#else
#define FWD model_fwd
#endif
int main(void) {
    double x[4] = {0.4, -1.1, 2.3, 0.7}, dx[4] = {0.3, 0.2, -0.5, 1.0};
    for (int j = 0; j < 3; j++) {
        double k = 0.5 + j, dk = j == 1 ? 0.0 : 0.8;
        double t = FWD(x, dx, k, dk, 4);
        double h = 1e-6, xp[4], xm[4];
        for (int i = 0; i < 4; i++) {
            xp[i] = x[i] + h * dx[i];
            xm[i] = x[i] - h * dx[i];
        }
        check_close("model along (dx, dk)", t, (model(xp, k + h * dk, 4) - model(xm, k - h * dk, 4)) / (2 * h), FD_RTOL, FD_ATOL);
    }
    return zyg_report();
}
#endif
