// The GPU benchmark bench/gpu/reduce.cu (a block sum of f(x) = x^2/2 + sin x in shared
// memory, a barrier per tree level; its gradient kernel asks zyg for the gradient of the
// per-thread body with __enzyme_autodiff) at a small size: the device side through zyg at
// -O2 and -O0 (and through the pass plugin at -O2, as the benchmark is built), ptxas for
// sm_70, 80 and 90, then the same kernel IR on the emulated grid (a POSIX thread per GPU
// thread, barriers per block) against the known derivative, central differences of the
// primal kernel, and the hand-written gradient kernel.
// REQUIRES: ptxas, cuda-headers
// RUN: %cuda-root %t.cuda
// RUN: %clang -x cuda --cuda-path=%t.cuda --cuda-gpu-arch=sm_70 --cuda-device-only -nocudalib -Wno-unknown-cuda-version -DZYG_BENCH_NO_MAIN -O2 -S -emit-llvm %S/../../bench/gpu/reduce.cu -o %t.ll
// RUN: %zyg grad %t.ll -o %t.grad.ll
// RUN: %zyg compile %t.grad.ll -o %t.70.ptx --target nvptx64 --gpu sm_70
// RUN: %ptxas -arch=sm_70 %t.70.ptx -o %t.70.cubin
// RUN: %zyg compile %t.grad.ll -o %t.80.ptx --target nvptx64 --gpu sm_80
// RUN: %ptxas -arch=sm_80 %t.80.ptx -o %t.80.cubin
// RUN: %zyg compile %t.grad.ll -o %t.90.ptx --target nvptx64 --gpu sm_90
// RUN: %ptxas -arch=sm_90 %t.90.ptx -o %t.90.cubin
// RUN: python3 %S/../bin/ptx-to-host.py %t.grad.ll > %t.host.ll
// RUN: %clang -x c -O1 -pthread -I %include %s -x ir %t.host.ll -lm -o %t.exe
// RUN: %t.exe | FileCheck %s
// RUN: %clang -x cuda --cuda-path=%t.cuda --cuda-gpu-arch=sm_70 --cuda-device-only -nocudalib -Wno-unknown-cuda-version -DZYG_BENCH_NO_MAIN -O0 -S -emit-llvm %S/../../bench/gpu/reduce.cu -o %t.O0.ll
// RUN: %zyg grad %t.O0.ll -o %t.O0.grad.ll
// RUN: %zyg compile %t.O0.grad.ll -o %t.O0.ptx --target nvptx64 --gpu sm_90
// RUN: %ptxas -arch=sm_90 %t.O0.ptx -o %t.O0.cubin
// RUN: python3 %S/../bin/ptx-to-host.py %t.O0.grad.ll > %t.O0.host.ll
// RUN: %clang -x c -O1 -pthread -I %include %s -x ir %t.O0.host.ll -lm -o %t.O0.exe
// RUN: %t.O0.exe | FileCheck %s
// RUN: %clang -x cuda --cuda-path=%t.cuda --cuda-gpu-arch=sm_90 --cuda-device-only -nocudalib -Wno-unknown-cuda-version -DZYG_BENCH_NO_MAIN -fpass-plugin=%plugin -O2 -S -emit-llvm %S/../../bench/gpu/reduce.cu -o %t.plugin.ll
// RUN: python3 %S/../bin/ptx-to-host.py %t.plugin.ll > %t.plugin.host.ll
// RUN: %clang -x c -O1 -pthread -I %include %s -x ir %t.plugin.host.ll -lm -o %t.plugin.exe
// RUN: %t.plugin.exe | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
#include <math.h>
#include "zyg_check.h"
#include "zyg_gpu_emu.h"
void reduce_primal(const float *x, float *out, int n);
void reduce_grad(const float *x, float *dx, float *out, float *dout, int n);
void reduce_grad_hand(const float *x, float *dx, const float *dout, int n);
/* CUDA's sinf and cosf in device code are libdevice's (linked when the PTX is made). */
float __nv_sinf(float x) { return sinf(x); }
float __nv_cosf(float x) { return cosf(x); }

enum { BLOCK = 256, N = 700, BLOCKS = (N + BLOCK - 1) / BLOCK };
static float x[N], dx[N], dxh[N], out[BLOCKS], dout[BLOCKS], seed[BLOCKS];
static void run_primal(void *p) { (void)p; reduce_primal(x, out, N); }
static void run_grad(void *p) { (void)p; reduce_grad(x, dx, out, dout, N); }
static void run_hand(void *p) { (void)p; reduce_grad_hand(x, dxh, seed, N); }

static double loss(void) {
    emu_launch_threads(BLOCKS, BLOCK, run_primal, 0);
    double l = 0;
    for (int b = 0; b < BLOCKS; b++)
        l += (double)seed[b] * out[b];
    return l;
}

int main(void) {
    for (int i = 0; i < N; i++)
        x[i] = 1.8f * sinf(0.37f * i + 0.2f);
    for (int b = 0; b < BLOCKS; b++)
        seed[b] = dout[b] = 0.75f + 0.5f * b;
    emu_launch_threads(BLOCKS, BLOCK, run_grad, 0);
    emu_launch_threads(BLOCKS, BLOCK, run_hand, 0);
    for (int b = 0; b < BLOCKS; b++)
        check_close("dout consumed", dout[b], 0.0, 0, 0);
    double sum = 0;
    for (int i = 0; i < N; i++) {
        double want = seed[i / BLOCK] * (x[i] + cos(x[i]));
        check_close("dx", dx[i], want, FLOAT_RTOL, FLOAT_ATOL);
        check_close("dx hand", dxh[i], want, FLOAT_RTOL, FLOAT_ATOL);
        sum += 0.5 * x[i] * x[i] + sin(x[i]);
    }
    /* The primal (the gradient kernel wrote it too) and central differences of it. */
    double l = 0;
    for (int b = 0; b < BLOCKS; b++)
        l += (double)seed[b] * out[b];
    check_close("loss after the gradient", l, loss(), 1e-6, 1e-6);
    (void)sum;
    int coords[] = {0, 1, 255, 256, 300, 511, 512, N - 1};
    for (unsigned k = 0; k < sizeof coords / sizeof *coords; k++) {
        int i = coords[k];
        float x0 = x[i], h = 1e-2f;
        x[i] = x0 + h;
        double lp = loss();
        x[i] = x0 - h;
        double lm = loss();
        x[i] = x0;
        check_close("dx vs central difference", dx[i], (lp - lm) / (2.0 * h), 1e-2, 1e-2);
    }
    return zyg_report();
}
