// `__enzyme_autodiff` inside device code: each thread of a kernel asks for the gradient of
// a device function at its own point (a per-thread Newton step on f(x) = x^3 - a with
// df/dx from zyg). The request is filled in as on the CPU; checked on the emulated grid.
// REQUIRES: ptxas
// RUN: %clang --target=nvptx64-nvidia-cuda -march=sm_70 -Xclang -target-feature -Xclang +ptx75 -O2 -S -emit-llvm %s -o %t.ll
// RUN: %zyg grad %t.ll -o %t.grad.ll
// RUN: %zyg compile %t.grad.ll -o %t.ptx --target nvptx64 --gpu sm_70
// RUN: %ptxas -arch=sm_70 %t.ptx -o %t.cubin
// RUN: python3 %S/../bin/ptx-to-host.py %t.grad.ll > %t.host.ll
// RUN: %clang -O1 -pthread -DZYG_HOST_DRIVER -I %include %s %t.host.ll -lm -o %t.exe
// RUN: %t.exe | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
#ifndef ZYG_HOST_DRIVER
float __enzyme_autodiff(void *, ...);
extern int enzyme_const;
float expf(float);

static float f(float x, float a) { return x * x * x + 0.1f * expf(x) - a; }

__attribute__((nvptx_kernel)) void newton(const float *a, float *x, float *slope, int n) {
    int i = __nvvm_read_ptx_sreg_ctaid_x() * __nvvm_read_ptx_sreg_ntid_x() + __nvvm_read_ptx_sreg_tid_x();
    if (i >= n)
        return;
    float d = __enzyme_autodiff((void *)f, x[i], enzyme_const, a[i]);
    slope[i] = d;
    x[i] = x[i] - f(x[i], a[i]) / d;
}
#else
#include <math.h>
#include "zyg_check.h"
#include "zyg_gpu_emu.h"
void newton(const float *a, float *x, float *slope, int n);
enum { N = 21 };
int main(void) {
    float a[N], x[N], slope[N];
    for (int i = 0; i < N; i++) {
        a[i] = 0.5f + 0.2f * i;
        x[i] = 1.0f + 0.05f * i;
    }
    float x0[N];
    for (int i = 0; i < N; i++) x0[i] = x[i];
    EMU_LAUNCH(3, 8, newton(a, x, slope, N));
    for (int i = 0; i < N; i++)
        check_close("df/dx", slope[i], 3.0 * x0[i] * x0[i] + 0.1 * exp(x0[i]), FLOAT_RTOL, FLOAT_ATOL);
    return zyg_report();
}
#endif
