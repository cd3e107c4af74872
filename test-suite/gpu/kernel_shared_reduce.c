// A block sum in shared memory: each thread squares its element into a shared array, then a
// tree reduction halves the active threads with a barrier after every step, and thread 0
// writes the block's sum. The gradient kernel keeps the shared array's shadow in shared
// memory too, zeroes it cooperatively and waits at a barrier before anything adds into it,
// replays the loop's barriers in reverse, and adds into the shared shadow atomically (buf is
// read at t + s and at 0 as well as at t: not thread-private). The kernel IR runs on the
// threaded emulated grid (a POSIX thread per GPU thread, a pthread barrier per block, shared
// memory filled with NaNs before each block) and is checked against finite differences.
// REQUIRES: ptxas
// RUN: %clang --target=nvptx64-nvidia-cuda -march=sm_70 -Xclang -target-feature -Xclang +ptx75 -O2 -S -emit-llvm %s -o %t.ll
// RUN: %zyg grad %t.ll --fn blocksum -o %t.grad.ll
// RUN: FileCheck --check-prefix=IR %s < %t.grad.ll
// RUN: %zyg compile %t.grad.ll -o %t.70.ptx --target nvptx64 --gpu sm_70
// RUN: %zyg compile %t.grad.ll -o %t.90.ptx --target nvptx64 --gpu sm_90
// RUN: %ptxas -arch=sm_70 %t.70.ptx -o %t.70.cubin
// RUN: %ptxas -arch=sm_90 %t.90.ptx -o %t.90.cubin
// RUN: FileCheck --check-prefix=PTX %s < %t.70.ptx
// RUN: python3 %S/../bin/ptx-to-host.py %t.grad.ll > %t.host.ll
// RUN: %clang -O1 -pthread -DZYG_HOST_DRIVER -I %include %s %t.host.ll -lm -o %t.exe
// RUN: %t.exe | FileCheck %s
// The shadow is shared memory without an initialiser; the gradient kernel first zeroes it
// (a loop from tid.x in steps of ntid.x), then waits, then runs the primal and the adjoint.
// IR: @__zyg_shadow_buf = internal addrspace(3) global [256 x float] undef, align 16
// IR: define ptx_kernel void @blocksum_grad(
// IR: [[TID:%[0-9]+]] = {{.*}}call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
// IR: call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
// IR: atomicrmw fadd ptr addrspace(3) @__zyg_shadow_buf
// IR: atomicrmw fadd ptr addrspace(3)
// IR: store i32 0, ptr addrspace(3)
// PTX: .shared .align 16 .b8 __zyg_shadow_buf[1024];
// PTX: atom.shared.add.f32
// CHECK-NOT: FAIL
// CHECK: ALL OK
#ifndef ZYG_HOST_DRIVER
__attribute__((address_space(3))) static float buf[256];

__attribute__((nvptx_kernel)) void blocksum(const float *x, float *y, int n) {
    int t = __nvvm_read_ptx_sreg_tid_x();
    int i = __nvvm_read_ptx_sreg_ctaid_x() * __nvvm_read_ptx_sreg_ntid_x() + t;
    buf[t] = i < n ? x[i] * x[i] : 0.0f;
    __syncthreads();
    for (int s = __nvvm_read_ptx_sreg_ntid_x() / 2; s > 0; s /= 2) {
        if (t < s) buf[t] += buf[t + s];
        __syncthreads();
    }
    if (t == 0) y[__nvvm_read_ptx_sreg_ctaid_x()] = buf[0];
}
#else
#include "zyg_check.h"
#include "zyg_gpu_emu.h"
void blocksum(const float *x, float *y, int n);
void blocksum_grad(const float *x, float *dx, float *y, float *dy, int n);

enum { N = 75, BLOCK = 32, GRID = (N + BLOCK - 1) / BLOCK };

struct args { const float *x; float *dx, *y, *dy; };
static void primal(void *p) { struct args *a = p; blocksum(a->x, a->y, N); }
static void gradient(void *p) { struct args *a = p; blocksum_grad(a->x, a->dx, a->y, a->dy, N); }

/* sum_b w_b y_b after the kernel, as a function of x[k] (double, for differences). */
static double loss(const float *x0, const float *w, int k, double h) {
    float x[N], y[GRID];
    for (int i = 0; i < N; i++) x[i] = x0[i];
    x[k] += (float)h;
    struct args a = {x, 0, y, 0};
    emu_launch_threads(GRID, BLOCK, primal, &a);
    double s = 0;
    for (int b = 0; b < GRID; b++) s += (double)w[b] * y[b];
    return s;
}

int main(void) {
    float x[N], dx[N] = {0}, y[GRID], dy[GRID], w[GRID];
    for (int i = 0; i < N; i++) x[i] = 0.05f * (i % 17) - 0.4f;
    for (int b = 0; b < GRID; b++) w[b] = dy[b] = 1.0f + 0.5f * b; /* the seed: d loss / d y */
    struct args a = {x, dx, y, dy};
    emu_launch_threads(GRID, BLOCK, gradient, &a);
    double h = 1e-2;
    for (int b = 0; b < GRID; b++) { /* the gradient kernel's primal: each block's sum of squares */
        double want = 0;
        for (int i = b * BLOCK; i < N && i < (b + 1) * BLOCK; i++) want += (double)x[i] * x[i];
        check_close("y", y[b], want, FLOAT_RTOL, FLOAT_ATOL);
    }
    for (int k = 0; k < N; k += 4)
        check_close("d/dx", dx[k], (loss(x, w, k, h) - loss(x, w, k, -h)) / (2 * h), FLOAT_RTOL, FLOAT_ATOL);
    check_close("d/dx last", dx[N - 1], (loss(x, w, N - 1, h) - loss(x, w, N - 1, -h)) / (2 * h), FLOAT_RTOL, FLOAT_ATOL);
    check_close("d/dx block edge", dx[BLOCK], (loss(x, w, BLOCK, h) - loss(x, w, BLOCK, -h)) / (2 * h), FLOAT_RTOL, FLOAT_ATOL);
    return zyg_report();
}
#endif
