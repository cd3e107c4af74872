// A kernel with __syncthreads between a write and a read of global memory by different
// threads: the gradient kernel replays the barrier in its adjoint (at the mirrored point),
// so each thread's shadow updates are ordered as the primal's stores were. Run on the
// threaded emulated grid (a POSIX thread per GPU thread, a pthread barrier per block) and
// checked against finite differences. __syncthreads orders the threads of one block only,
// and thread i reads tmp[i - 1] and tmp[i + 1]: the kernel is free of races only when the
// grid is one block, so it runs as one block of N threads.
// REQUIRES: ptxas
// RUN: %clang --target=nvptx64-nvidia-cuda -march=sm_70 -Xclang -target-feature -Xclang +ptx75 -O2 -S -emit-llvm %s -o %t.ll
// RUN: %zyg grad %t.ll --fn smooth -o %t.grad.ll
// RUN: FileCheck --check-prefix=IR %s < %t.grad.ll
// RUN: %zyg compile %t.grad.ll -o %t.ptx --target nvptx64 --gpu sm_80
// RUN: %ptxas -arch=sm_80 %t.ptx -o %t.cubin
// RUN: %zyg compile %t.grad.ll -o %t.70.ptx --target nvptx64 --gpu sm_70
// RUN: %zyg compile %t.grad.ll -o %t.90.ptx --target nvptx64 --gpu sm_90
// RUN: %ptxas -arch=sm_70 %t.70.ptx -o %t.70.cubin
// RUN: %ptxas -arch=sm_90 %t.90.ptx -o %t.90.cubin
// RUN: python3 %S/../bin/ptx-to-host.py %t.grad.ll > %t.host.ll
// RUN: %clang -O1 -pthread -DZYG_HOST_DRIVER -I %include %s %t.host.ll -lm -o %t.exe
// RUN: %t.exe | FileCheck %s
// The primal's barrier, the adjoint of the reads after it (tmp is read by three threads:
// atomic), the replayed barrier, then the adjoint of the writes before it.
// IR: define ptx_kernel void @smooth_grad(
// IR: call void @llvm.nvvm.barrier
// IR: atomicrmw fadd
// IR: call void @llvm.nvvm.barrier
// IR: ret void
// CHECK-NOT: FAIL
// CHECK: ALL OK
#ifndef ZYG_HOST_DRIVER
float sqrtf(float);

__attribute__((nvptx_kernel)) void smooth(const float *x, float *tmp, float *y, int n) {
    int i = __nvvm_read_ptx_sreg_ctaid_x() * __nvvm_read_ptx_sreg_ntid_x() + __nvvm_read_ptx_sreg_tid_x();
    if (i < n)
        tmp[i] = x[i] * x[i];
    __syncthreads();
    if (i > 0 && i < n - 1)
        y[i] = sqrtf(tmp[i - 1] + tmp[i] + tmp[i + 1] + 1.0f);
}
#else
#include "zyg_check.h"
#include "zyg_gpu_emu.h"
void smooth(const float *x, float *tmp, float *y, int n);
void smooth_grad(const float *x, float *dx, float *tmp, float *dtmp, float *y, float *dy, int n);

enum { N = 48 };

struct args { const float *x; float *dx, *tmp, *dtmp, *y, *dy; };
static void primal(void *p) { struct args *a = p; smooth(a->x, a->tmp, a->y, N); }
static void gradient(void *p) { struct args *a = p; smooth_grad(a->x, a->dx, a->tmp, a->dtmp, a->y, a->dy, N); }

/* sum_i w_i y_i after the kernel, as a function of x[k]. */
static double loss(const float *x0, const float *w, int k, double h) {
    float x[N], tmp[N], y[N] = {0};
    for (int i = 0; i < N; i++) x[i] = x0[i];
    x[k] += (float)h;
    struct args a = {x, 0, tmp, 0, y, 0};
    emu_launch_threads(1, N, primal, &a);
    double s = 0;
    for (int i = 0; i < N; i++) s += (double)w[i] * y[i];
    return s;
}

int main(void) {
    float x[N], dx[N] = {0}, tmp[N], dtmp[N] = {0}, y[N] = {0}, dy[N], w[N];
    for (int i = 0; i < N; i++) {
        x[i] = 0.09f * (i % 11) - 0.45f;
        w[i] = dy[i] = 1.0f + 0.2f * (i % 3); /* the seed: d loss / d y */
    }
    struct args a = {x, dx, tmp, dtmp, y, dy};
    emu_launch_threads(1, N, gradient, &a);
    double h = 1e-2;
    for (int k = 0; k < N; k += 3)
        check_close("d/dx", dx[k], (loss(x, w, k, h) - loss(x, w, k, -h)) / (2 * h), FLOAT_RTOL, FLOAT_ATOL);
    check_close("d/dx last", dx[N - 1], (loss(x, w, N - 1, h) - loss(x, w, N - 1, -h)) / (2 * h), FLOAT_RTOL, FLOAT_ATOL);
    return zyg_report();
}
#endif
