// The GPU benchmark bench/gpu/stencil2d.cu (a block sum of f(x) = x^2/2 + sin x in shared
// memory, a barrier per tree level; its gradient kernel asks zyg for the gradient of the
// per-thread body with __enzyme_autodiff) at a small size: the device side through zyg at
// -O2 and -O0 (and through the pass plugin at -O2, as the benchmark is built), ptxas for
// sm_70, 80 and 90, then the same kernel IR on the emulated grid (a POSIX thread per GPU
// thread, barriers per block) against the known derivative, central differences of the
// primal kernel, and the hand-written gradient kernel.
// REQUIRES: ptxas, cuda-headers
// RUN: %cuda-root %t.cuda
// RUN: %clang -x cuda --cuda-path=%t.cuda --cuda-gpu-arch=sm_70 --cuda-device-only -nocudalib -Wno-unknown-cuda-version -DZYG_BENCH_NO_MAIN -O2 -S -emit-llvm %S/../../bench/gpu/stencil2d.cu -o %t.ll
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
// RUN: %clang -x cuda --cuda-path=%t.cuda --cuda-gpu-arch=sm_70 --cuda-device-only -nocudalib -Wno-unknown-cuda-version -DZYG_BENCH_NO_MAIN -O0 -S -emit-llvm %S/../../bench/gpu/stencil2d.cu -o %t.O0.ll
// RUN: %zyg grad %t.O0.ll -o %t.O0.grad.ll
// RUN: %zyg compile %t.O0.grad.ll -o %t.O0.ptx --target nvptx64 --gpu sm_90
// RUN: %ptxas -arch=sm_90 %t.O0.ptx -o %t.O0.cubin
// RUN: python3 %S/../bin/ptx-to-host.py %t.O0.grad.ll > %t.O0.host.ll
// RUN: %clang -x c -O1 -pthread -I %include %s -x ir %t.O0.host.ll -lm -o %t.O0.exe
// RUN: %t.O0.exe | FileCheck %s
// RUN: %clang -x cuda --cuda-path=%t.cuda --cuda-gpu-arch=sm_90 --cuda-device-only -nocudalib -Wno-unknown-cuda-version -DZYG_BENCH_NO_MAIN -fpass-plugin=%plugin -O2 -S -emit-llvm %S/../../bench/gpu/stencil2d.cu -o %t.plugin.ll
// RUN: python3 %S/../bin/ptx-to-host.py %t.plugin.ll > %t.plugin.host.ll
// RUN: %clang -x c -O1 -pthread -I %include %s -x ir %t.plugin.host.ll -lm -o %t.plugin.exe
// RUN: %t.plugin.exe | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
#include <math.h>
#include "zyg_check.h"
#include "zyg_gpu_emu.h"
void stencil_primal(const float *u, float *out, int w, int h, float k, float a);
void stencil_grad(const float *u, float *du, float *out, float *dout, int w, int h, float k, float a);
void stencil_grad_hand(const float *u, float *du, const float *dout, int w, int h, float k, float a);

enum { W = 37, H = 19, N = W * H, BX = 32, BY = 8, GX = (W + BX - 1) / BX, GY = (H + BY - 1) / BY };
static const float K = 0.2f, A = 0.1f;
static float u[N], du[N], duh[N], out[N], dout[N], seed[N];
static void run_primal(void *p) { (void)p; stencil_primal(u, out, W, H, K, A); }
static void run_grad(void *p) { (void)p; stencil_grad(u, du, out, dout, W, H, K, A); }
static void run_hand(void *p) { (void)p; stencil_grad_hand(u, duh, seed, W, H, K, A); }
static int interior(int r, int c) { return r >= 1 && r < H - 1 && c >= 1 && c < W - 1; }

static double loss(void) {
    emu_launch_threads_2d(GX, GY, BX, BY, run_primal, 0);
    double l = 0;
    for (int p = 0; p < N; p++)
        l += (double)seed[p] * out[p];
    return l;
}

int main(void) {
    for (int p = 0; p < N; p++) {
        int r = p / W, c = p % W;
        u[p] = sinf(0.3f * r) * cosf(0.23f * c) + 0.2f * sinf(1.7f * p);
        seed[p] = dout[p] = interior(r, c) ? 0.5f + 0.01f * (p % 37) : 0.0f;
    }
    emu_launch_threads_2d(GX, GY, BX, BY, run_grad, 0);
    emu_launch_threads_2d(GX, GY, BX, BY, run_hand, 0);
    for (int p = 0; p < N; p++) {
        int r = p / W, c = p % W;
        check_close("dout consumed", dout[p], 0.0, 0, 0);
        /* The adjoint stencil: the point's own output and its four neighbours'. */
        double want = 0;
        if (interior(r, c))
            want += seed[p] * (1.0 - 4.0 * K - 3.0 * A * u[p] * u[p]);
        if (interior(r - 1, c)) want += K * seed[p - W];
        if (interior(r + 1, c)) want += K * seed[p + W];
        if (interior(r, c - 1)) want += K * seed[p - 1];
        if (interior(r, c + 1)) want += K * seed[p + 1];
        check_close("du", du[p], want, FLOAT_RTOL, FLOAT_ATOL);
        check_close("du hand", duh[p], want, FLOAT_RTOL, FLOAT_ATOL);
    }
    double l = 0;
    for (int p = 0; p < N; p++)
        l += (double)seed[p] * out[p];
    check_close("loss after the gradient", l, loss(), 1e-6, 1e-6);
    int coords[] = {0, 1, W + 1, 2 * W + 5, 5 * W + 33, N / 2, N - W - 2, N - 1};
    for (unsigned k = 0; k < sizeof coords / sizeof *coords; k++) {
        int p = coords[k];
        float u0 = u[p], h = 1e-2f;
        u[p] = u0 + h;
        double lp = loss();
        u[p] = u0 - h;
        double lm = loss();
        u[p] = u0;
        check_close("du vs central difference", du[p], (lp - lm) / (2.0 * h), 1e-2, 1e-2);
    }
    return zyg_report();
}
