// Warp shuffles of floats (`__shfl_down_sync`, `__shfl_up_sync`, `__shfl_xor_sync`): their
// adjoints are shuffles the other way (zyg-transform/src/rules/warp.rs). Three kernels, in
// single-source CUDA: a warp sum by shuffling down, added into a total by lane 0 with
// atomicAdd; an inclusive prefix sum by shuffling up; an all-reduce by xor (butterfly).
// Gradient kernels through ptxas (sm_70, 80, 90), then on the emulated grid (blocks of one
// warp, threads at once, shuffles exchanged at the block's barrier) against the known
// derivatives; forward mode's tangent kernel of the butterfly too.
// REQUIRES: ptxas, cuda-headers
// RUN: %cuda-root %t.cuda
// RUN: %clang -x cuda --cuda-path=%t.cuda --cuda-gpu-arch=sm_70 --cuda-device-only -nocudalib -Wno-unknown-cuda-version -O2 -S -emit-llvm %s -o %t.ll
// RUN: %zyg grad %t.ll --fn warp_sum --args dup,dup,const --fn scan --args dup,dup,const --fn butterfly --args dup,dup,const -o %t.grad0.ll
// RUN: %zyg grad %t.grad0.ll --mode forward --fn butterfly --args dup,dup,const -o %t.grad.ll
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
extern "C" __global__ void warp_sum(const float *x, float *total, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? x[i] * x[i] : 0.0f;
    for (int o = 16; o > 0; o /= 2)
        v += __shfl_down_sync(0xffffffffu, v, o);
    if ((threadIdx.x & 31) == 0)
        atomicAdd(total, v);
}

extern "C" __global__ void scan(const float *x, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x, lane = threadIdx.x & 31;
    float v = i < n ? x[i] : 0.0f;
    for (int o = 1; o < 32; o *= 2) {
        float t = __shfl_up_sync(0xffffffffu, v, o);
        if (lane >= o)
            v += t;
    }
    if (i < n)
        out[i] = v * v;
}

extern "C" __global__ void butterfly(const float *x, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? x[i] : 0.0f;
    for (int m = 16; m > 0; m /= 2)
        v += __shfl_xor_sync(0xffffffffu, v, m);
    if (i < n)
        out[i] = v * x[i];
}
#else
#include <math.h>
#include "zyg_check.h"
#include "zyg_gpu_emu.h"
void warp_sum_grad(const float *x, float *dx, float *total, float *dtotal, int n);
void scan_grad(const float *x, float *dx, float *out, float *dout, int n);
void butterfly_grad(const float *x, float *dx, float *out, float *dout, int n);
void butterfly_fwd(const float *x, const float *tx, float *out, float *tout, int n);

enum { W = 32, BLOCKS = 2, N = W * BLOCKS };
static float x[N], dx[N], tx[N], out[N], dout[N], tout[N], total, dtotal;
static void run_sum(void *p) { (void)p; warp_sum_grad(x, dx, &total, &dtotal, N); }
static void run_scan(void *p) { (void)p; scan_grad(x, dx, out, dout, N); }
static void run_butterfly(void *p) { (void)p; butterfly_grad(x, dx, out, dout, N); }
static void run_tangent(void *p) { (void)p; butterfly_fwd(x, tx, out, tout, N); }

int main(void) {
    float seed[N];
    for (int k = 0; k < N; k++) {
        x[k] = 0.03f * k - 0.9f;
        seed[k] = 1.0f + 0.05f * (k % 7);
        tx[k] = cosf(0.7f * k);
    }
    total = 0;
    dtotal = 1.5f;
    emu_launch_threads(BLOCKS, W, run_sum, 0);
    double want_total = 0;
    for (int k = 0; k < N; k++) {
        want_total += (double)x[k] * x[k];
        check_close("warp_sum, dx", dx[k], 1.5 * 2 * x[k], FLOAT_RTOL, FLOAT_ATOL);
    }
    check_close("warp_sum, total", total, want_total, FLOAT_RTOL, FLOAT_ATOL);

    for (int k = 0; k < N; k++)
        dx[k] = 0, dout[k] = seed[k];
    emu_launch_threads(BLOCKS, W, run_scan, 0);
    for (int b = 0; b < BLOCKS; b++)
        for (int j = 0; j < W; j++) {
            /* d/dx_j of sum_i dout_i (prefix_i)^2 = sum over i >= j of 2 dout_i prefix_i. */
            double want = 0, prefix = 0;
            for (int i = 0; i < W; i++) {
                prefix += x[b * W + i];
                if (i >= j)
                    want += 2 * seed[b * W + i] * prefix;
            }
            check_close("scan, dx", dx[b * W + j], want, FLOAT_RTOL, FLOAT_ATOL);
        }

    for (int k = 0; k < N; k++)
        dx[k] = 0, dout[k] = seed[k];
    emu_launch_threads(BLOCKS, W, run_butterfly, 0);
    for (int b = 0; b < BLOCKS; b++) {
        double s = 0, weighted = 0, tangent_s = 0;
        for (int i = 0; i < W; i++) {
            s += x[b * W + i];
            weighted += seed[b * W + i] * x[b * W + i];
            tangent_s += tx[b * W + i];
        }
        for (int j = 0; j < W; j++) {
            int k = b * W + j;
            check_close("butterfly, dx", dx[k], seed[k] * s + weighted, FLOAT_RTOL, FLOAT_ATOL);
        }
        /* Forward mode: out_j = S x_j, so its tangent is tS x_j + S tx_j. */
        emu_launch_threads(BLOCKS, W, run_tangent, 0);
        for (int j = 0; j < W; j++) {
            int k = b * W + j;
            check_close("butterfly, tangent", tout[k], tangent_s * x[k] + s * tx[k], FLOAT_RTOL, FLOAT_ATOL);
        }
    }
    return zyg_report();
}
#endif
