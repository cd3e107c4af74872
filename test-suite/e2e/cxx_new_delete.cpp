// C++ (exceptions on): operator new[] / delete[] scratch memory and a helper taking a
// reference, differentiated through extern "C" entry points.
// RUN: %clangxx -O0 -g -I %include -S -emit-llvm %s -o %t.O0.ll
// RUN: %zyg grad %t.O0.ll -o %t.O0.grad.ll && %clangxx %t.O0.grad.ll -lm -o %t.O0.exe && %t.O0.exe | FileCheck %s
// RUN: %clangxx -O2 -g -I %include -S -emit-llvm %s -o %t.O2.ll
// RUN: %zyg grad %t.O2.ll -o %t.O2.grad.ll && %clangxx %t.O2.grad.ll -lm -o %t.O2.exe && %t.O2.exe | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
extern "C" {
#include "zyg_check.h"
}

static void smooth(const double &left, double &mid, const double &right) { mid = 0.25 * left + 0.5 * mid + 0.25 * right; }

static double loss(const double *x, int n) {
    double *tmp = new double[n];
    for (int i = 0; i < n; i++)
        tmp[i] = x[i] * x[i];
    for (int i = 1; i + 1 < n; i++)
        smooth(tmp[i - 1], tmp[i], tmp[i + 1]);
    double s = 0;
    for (int i = 0; i < n; i++)
        s += tmp[i] * (i + 1);
    delete[] tmp;
    return s;
}

int main() {
    double x[6] = {0.5, -1.0, 2.0, 0.25, -0.75, 1.5}, dx[6] = {0};
    __enzyme_autodiff((void *)loss, x, dx, 6);
    for (int k = 0; k < 6; k++) {
        double a[6], b[6], h = 1e-6;
        for (int i = 0; i < 6; i++) a[i] = b[i] = x[i];
        a[k] += h;
        b[k] -= h;
        check_close("dx[k]", dx[k], (loss(a, 6) - loss(b, 6)) / (2 * h), FD_RTOL, FD_ATOL);
    }
    return zyg_report();
}
