// Single-source CUDA kernels with a 3D grid (blockIdx.z, threadIdx.z) and with `atomicAdd`
// in the primal (a dot product accumulated by every thread, seq_cst as CUDA's atomicAdd
// is): their gradient kernels (`zyg grad --fn`), through ptxas for sm_70, 80 and 90, then on
// the emulated grid with each block's threads running at once (the adjoints' atomic
// additions under real concurrency), against the known derivatives.
// REQUIRES: ptxas, cuda-headers
// RUN: %cuda-root %t.cuda
// RUN: %clang -x cuda --cuda-path=%t.cuda --cuda-gpu-arch=sm_70 --cuda-device-only -nocudalib -Wno-unknown-cuda-version -O2 -S -emit-llvm %s -o %t.ll
// RUN: %zyg grad %t.ll --fn field3 --args dup,dup,const,const,const --fn dot --args dup,dup,dup,const -o %t.grad.ll
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
extern "C" __global__ void field3(const float *x, float *out, int nx, int ny, int nz) {
    int a = blockIdx.x * blockDim.x + threadIdx.x;
    int b = blockIdx.y * blockDim.y + threadIdx.y;
    int c = blockIdx.z * blockDim.z + threadIdx.z;
    if (a < nx && b < ny && c < nz) {
        int k = (c * ny + b) * nx + a;
        out[k] = sinf(x[k]) * x[k] + 0.5f * c;
    }
}

extern "C" __global__ void dot(const float *x, const float *y, float *sum, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        atomicAdd(sum, x[i] * y[i]);
}
#else
#include <math.h>
#include "zyg_check.h"
#include "zyg_gpu_emu.h"
float __nv_sinf(float x) { return sinf(x); }
float __nv_cosf(float x) { return cosf(x); }
void field3_grad(const float *x, float *dx, float *out, float *dout, int nx, int ny, int nz);
void dot_grad(const float *x, float *dx, const float *y, float *dy, float *sum, float *dsum, int n);

enum { NX = 5, NY = 3, NZ = 4, N = NX * NY * NZ };
static float x[N], dx[N], out[N], dout[N], y[N], dy[N], sum, dsum;

static void run_field3(void *p) { (void)p; field3_grad(x, dx, out, dout, NX, NY, NZ); }
static void run_dot(void *p) { (void)p; dot_grad(x, dx, y, dy, &sum, &dsum, N); }

int main(void) {
    float seed[N];
    for (int k = 0; k < N; k++) {
        x[k] = 0.05f * k - 1.2f;
        y[k] = cosf(0.3f * k);
        seed[k] = dout[k] = 1.0f + 0.01f * k;
    }
    /* Blocks of 2 x 2 x 2 threads, more than enough of them in each dimension. */
    emu_launch_threads_3d(3, 2, 2, 2, 2, 2, run_field3, 0);
    for (int c = 0; c < NZ; c++)
        for (int b = 0; b < NY; b++)
            for (int a = 0; a < NX; a++) {
                int k = (c * NY + b) * NX + a;
                check_close("field3, out", out[k], sinf(x[k]) * x[k] + 0.5f * c, FLOAT_RTOL, FLOAT_ATOL);
                check_close("field3, dx", dx[k], seed[k] * (cos(x[k]) * x[k] + sin(x[k])), FLOAT_RTOL, FLOAT_ATOL);
                check_close("field3, dout consumed", dout[k], 0, 0, 0);
            }
    for (int k = 0; k < N; k++)
        dx[k] = 0;
    sum = 0.25f;
    dsum = 2.0f;
    emu_launch_threads(4, 16, run_dot, 0);
    double want = 0.25;
    for (int k = 0; k < N; k++) {
        want += (double)x[k] * y[k];
        check_close("dot, dx", dx[k], 2.0 * y[k], FLOAT_RTOL, FLOAT_ATOL);
        check_close("dot, dy", dy[k], 2.0 * x[k], FLOAT_RTOL, FLOAT_ATOL);
    }
    check_close("dot, sum", sum, want, FLOAT_RTOL, FLOAT_ATOL);
    check_close("dot, dsum kept", dsum, 2.0, 0, 0);
    return zyg_report();
}
#endif
