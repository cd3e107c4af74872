// `__enzyme_autodiff` inside a kernel, of a device function that shares values between the
// block's threads through shared memory: thread t puts x_t^2 at sm[t], waits, and returns
// sm[t] * sm[t + 1] (its neighbour's, wrapping in the block). The gradient function zeroes
// the shared shadow and waits before its primal, as a gradient kernel does, so every thread
// of the block makes the request. Each thread seeds its own result, and the neighbour's
// adjoint reaches thread t through the shared shadow: the slope each thread gets is
// d(sum over the block's results)/dx_t, which is what the test checks against finite
// differences of that sum, on the threaded emulated grid.
// REQUIRES: ptxas
// RUN: %clang --target=nvptx64-nvidia-cuda -march=sm_70 -Xclang -target-feature -Xclang +ptx75 -O2 -S -emit-llvm %s -o %t.ll
// RUN: %zyg grad %t.ll -o %t.grad.ll
// RUN: FileCheck --check-prefix=IR %s < %t.grad.ll
// RUN: %zyg compile %t.grad.ll -o %t.70.ptx --target nvptx64 --gpu sm_70
// RUN: %zyg compile %t.grad.ll -o %t.90.ptx --target nvptx64 --gpu sm_90
// RUN: %ptxas -arch=sm_70 %t.70.ptx -o %t.70.cubin
// RUN: %ptxas -arch=sm_90 %t.90.ptx -o %t.90.cubin
// RUN: python3 %S/../bin/ptx-to-host.py %t.grad.ll > %t.host.ll
// RUN: %clang -O1 -pthread -DZYG_HOST_DRIVER -I %include %s %t.host.ll -lm -o %t.exe
// RUN: %t.exe | FileCheck %s
// IR: @__zyg_shadow_sm = internal addrspace(3) global [64 x float] undef, align 16
// IR-LABEL: define {{.*}}void @slopes(
// IR: store i32 0, ptr addrspace(3)
// IR: atomicrmw fadd ptr addrspace(3)
// CHECK-NOT: FAIL
// CHECK: ALL OK
#ifndef ZYG_HOST_DRIVER
float __enzyme_autodiff(void *, ...);
float tanhf(float);
#define BLOCK 64
__attribute__((address_space(3))) static float sm[BLOCK];

static float f(float x) {
    int t = __nvvm_read_ptx_sreg_tid_x();
    sm[t] = x * x;
    __syncthreads();
    float r = sm[t] * tanhf(sm[(t + 1) % __nvvm_read_ptx_sreg_ntid_x()]);
    __syncthreads(); /* sm is read before the next use overwrites it */
    return r;
}

__attribute__((nvptx_kernel)) void values(const float *x, float *out) {
    int i = __nvvm_read_ptx_sreg_ctaid_x() * __nvvm_read_ptx_sreg_ntid_x() + __nvvm_read_ptx_sreg_tid_x();
    out[i] = f(x[i]);
}

__attribute__((nvptx_kernel)) void slopes(const float *x, float *slope) {
    int i = __nvvm_read_ptx_sreg_ctaid_x() * __nvvm_read_ptx_sreg_ntid_x() + __nvvm_read_ptx_sreg_tid_x();
    slope[i] = __enzyme_autodiff((void *)f, x[i]);
}
#else
#include "zyg_check.h"
#include "zyg_gpu_emu.h"
void values(const float *x, float *out);
void slopes(const float *x, float *slope);

enum { BLOCK = 16, GRID = 3, N = BLOCK * GRID };

struct args { const float *x; float *out; };
static void run_values(void *p) { struct args *a = p; values(a->x, a->out); }
static void run_slopes(void *p) { struct args *a = p; slopes(a->x, a->out); }

/* The sum of the results of x[k]'s block, as a function of x[k]. */
static double block_sum(const float *x0, int k, double h) {
    float x[N], out[N];
    for (int i = 0; i < N; i++) x[i] = x0[i];
    x[k] += (float)h;
    struct args a = {x, out};
    emu_launch_threads(GRID, BLOCK, run_values, &a);
    double s = 0;
    for (int i = k / BLOCK * BLOCK; i < (k / BLOCK + 1) * BLOCK; i++) s += out[i];
    return s;
}

int main(void) {
    float x[N], slope[N];
    for (int i = 0; i < N; i++) x[i] = 0.1f * (i % 9) - 0.35f;
    struct args a = {x, slope};
    emu_launch_threads(GRID, BLOCK, run_slopes, &a);
    double h = 1e-2;
    for (int k = 0; k < N; k += 5)
        check_close("d sum/dx", slope[k], (block_sum(x, k, h) - block_sum(x, k, -h)) / (2 * h), FLOAT_RTOL, FLOAT_ATOL);
    check_close("d sum/dx last", slope[N - 1], (block_sum(x, N - 1, h) - block_sum(x, N - 1, -h)) / (2 * h), FLOAT_RTOL, FLOAT_ATOL);
    return zyg_report();
}
#endif
