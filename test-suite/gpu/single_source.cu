// Single-source CUDA: a `.cu` file whose `__global__` kernel asks, with
// `__enzyme_autodiff`, for the derivative of a `__device__` function at each thread's
// point (a per-thread Newton step on f(x) = x^3 + 0.1 e^x - a). The device side is compiled
// by clang's CUDA mode (`--cuda-device-only`, CUDA's headers from NVIDIA's wheels:
// bin/cuda-root.sh), zyg fills the request in, and the PTX goes through ptxas for sm_70, 80
// and 90; the same kernel IR then runs on the emulated grid against the known derivative.
// REQUIRES: ptxas, cuda-headers
// RUN: %cuda-root %t.cuda
// RUN: %clang -x cuda --cuda-path=%t.cuda --cuda-gpu-arch=sm_70 --cuda-device-only -nocudalib -Wno-unknown-cuda-version -O2 -S -emit-llvm %s -o %t.ll
// RUN: %zyg grad %t.ll -o %t.grad.ll
// RUN: %zyg compile %t.grad.ll -o %t.70.ptx --target nvptx64 --gpu sm_70
// RUN: %ptxas -arch=sm_70 %t.70.ptx -o %t.70.cubin
// RUN: %zyg compile %t.grad.ll -o %t.80.ptx --target nvptx64 --gpu sm_80
// RUN: %ptxas -arch=sm_80 %t.80.ptx -o %t.80.cubin
// RUN: %zyg compile %t.grad.ll -o %t.90.ptx --target nvptx64 --gpu sm_90
// RUN: %ptxas -arch=sm_90 %t.90.ptx -o %t.90.cubin
// RUN: python3 %S/../bin/ptx-to-host.py %t.grad.ll > %t.host.ll
// RUN: %clang -x c -O1 -pthread -DZYG_HOST_DRIVER -I %include %s -x ir %t.host.ll -lm -o %t.exe
// RUN: %t.exe | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
#ifndef ZYG_HOST_DRIVER
extern "C" __device__ float __enzyme_autodiff(void *, ...);
extern "C" __device__ int enzyme_const;

__device__ float f(float x, float a) { return x * x * x + 0.1f * expf(x) - a; }

extern "C" __global__ void newton(const float *a, float *x, float *slope, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
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
/* CUDA's `expf` in device code is libdevice's `__nv_expf` (linked when the PTX is made). */
float __nv_expf(float x) { return expf(x); }
enum { N = 29 };
int main(void) {
    float a[N], x[N], slope[N], x0[N];
    for (int i = 0; i < N; i++) {
        a[i] = 0.5f + 0.2f * i;
        x[i] = x0[i] = 1.0f + 0.05f * i;
    }
    EMU_LAUNCH(4, 8, newton(a, x, slope, N));
    for (int i = 0; i < N; i++) {
        check_close("df/dx", slope[i], 3.0 * x0[i] * x0[i] + 0.1 * exp(x0[i]), FLOAT_RTOL, FLOAT_ATOL);
        double fx = x0[i] * x0[i] * x0[i] + 0.1 * exp(x0[i]) - a[i];
        check_close("newton step", x[i], x0[i] - fx / slope[i], FLOAT_RTOL, FLOAT_ATOL);
    }
    return zyg_report();
}
#endif
