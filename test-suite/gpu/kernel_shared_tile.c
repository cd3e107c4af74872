// A stencil that stages a tile of global memory in shared memory: each thread copies its
// element, the block's first and last threads copy the halo (the neighbours' elements just
// outside the block), a barrier, then every thread reads its neighbours' entries of the tile.
// The tile's shadow is shared memory, zeroed by the gradient kernel; the adjoint of the reads
// adds into it atomically, the replayed barrier orders those adds before each thread takes
// its own entry's adjoint back to x (x's shadow: atomic, as blocks' halos overlap). Run on the
// threaded emulated grid and checked against finite differences, with x's elements on block
// edges (whose adjoint comes through a neighbour block's halo) among those checked.
// A second kernel stages each thread's element at stage[tid.x] and reads only that entry:
// its shadow is thread-private (module comment of zyg-transform/src/gpu.rs), and the
// gradient kernel has no atomics at all.
// REQUIRES: ptxas
// RUN: %clang --target=nvptx64-nvidia-cuda -march=sm_70 -Xclang -target-feature -Xclang +ptx75 -O2 -S -emit-llvm %s -o %t.ll
// RUN: %zyg grad %t.ll --fn smooth_tile -o %t.tile.ll
// RUN: %zyg grad %t.tile.ll --fn square_staged -o %t.grad.ll
// RUN: FileCheck --check-prefix=PRIVATE %s < %t.grad.ll
// RUN: FileCheck --check-prefix=IR %s < %t.grad.ll
// RUN: %zyg compile %t.grad.ll -o %t.70.ptx --target nvptx64 --gpu sm_70
// RUN: %zyg compile %t.grad.ll -o %t.90.ptx --target nvptx64 --gpu sm_90
// RUN: %ptxas -arch=sm_70 %t.70.ptx -o %t.70.cubin
// RUN: %ptxas -arch=sm_90 %t.90.ptx -o %t.90.cubin
// RUN: FileCheck --check-prefix=PTX %s < %t.70.ptx
// RUN: python3 %S/../bin/ptx-to-host.py %t.grad.ll > %t.host.ll
// RUN: %clang -O1 -pthread -DZYG_HOST_DRIVER -I %include %s %t.host.ll -lm -o %t.exe
// RUN: %t.exe | FileCheck %s
// IR: @__zyg_shadow_tile = internal addrspace(3) global [34 x float] undef, align 16
// The zeroing's barrier, the primal's, the atomic adds into the tile's shadow, the replayed
// barrier, the atomic adds into x's shadow; then (last in the layout) the zeroing loop.
// IR: define ptx_kernel void @smooth_tile_grad(
// IR: call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
// IR: call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
// IR: atomicrmw fadd ptr addrspace(3)
// IR: call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
// IR: atomicrmw fadd ptr %
// IR: store i32 0, ptr addrspace(3)
// PRIVATE-LABEL: define ptx_kernel void @square_staged_grad(
// PRIVATE: store i32 0, ptr addrspace(3)
// PRIVATE-NOT: atomicrmw
// PRIVATE: ret void
// PTX: .shared .align 16 .b8 __zyg_shadow_tile[136];
// CHECK-NOT: FAIL
// CHECK: ALL OK
#ifndef ZYG_HOST_DRIVER
float tanhf(float);
#define TILE 32
__attribute__((address_space(3))) static float tile[TILE + 2];

__attribute__((nvptx_kernel)) void smooth_tile(const float *x, float *y, int n) {
    int t = __nvvm_read_ptx_sreg_tid_x(), last = __nvvm_read_ptx_sreg_ntid_x() - 1;
    int i = __nvvm_read_ptx_sreg_ctaid_x() * __nvvm_read_ptx_sreg_ntid_x() + t;
    tile[t + 1] = i < n ? x[i] : 0.0f;
    if (t == 0)
        tile[0] = i > 0 && i <= n ? x[i - 1] : 0.0f;
    if (t == last)
        tile[t + 2] = i + 1 < n ? x[i + 1] : 0.0f;
    __syncthreads();
    if (i < n)
        y[i] = tanhf(0.25f * tile[t] + 0.5f * tile[t + 1] * tile[t + 1] + 0.25f * tile[t + 2] * tile[t]);
}

__attribute__((address_space(3))) static float stage[TILE];

__attribute__((nvptx_kernel)) void square_staged(const float *x, float *y, int n) {
    int t = __nvvm_read_ptx_sreg_tid_x();
    int i = __nvvm_read_ptx_sreg_ctaid_x() * __nvvm_read_ptx_sreg_ntid_x() + t;
    stage[t] = i < n ? x[i] : 0.0f;
    __syncthreads();
    if (i < n)
        y[i] = stage[t] * stage[t] * x[i];
}
#else
#include "zyg_check.h"
#include "zyg_gpu_emu.h"
void smooth_tile(const float *x, float *y, int n);
void square_staged(const float *x, float *y, int n);
void smooth_tile_grad(const float *x, float *dx, float *y, float *dy, int n);
void square_staged_grad(const float *x, float *dx, float *y, float *dy, int n);

enum { N = 90, BLOCK = 32, GRID = (N + BLOCK - 1) / BLOCK };

struct args { const float *x; float *dx, *y, *dy; };
static void primal(void *p) { struct args *a = p; smooth_tile(a->x, a->y, N); }
static void staged_primal(void *p) { struct args *a = p; square_staged(a->x, a->y, N); }
static void gradient(void *p) { struct args *a = p; smooth_tile_grad(a->x, a->dx, a->y, a->dy, N); }
static void staged_gradient(void *p) { struct args *a = p; square_staged_grad(a->x, a->dx, a->y, a->dy, N); }

/* sum_i w_i y_i after the kernel, as a function of x[k]. */
static double loss_of(void (*kernel)(void *), const float *x0, const float *w, int k, double h) {
    float x[N], y[N];
    for (int i = 0; i < N; i++) x[i] = x0[i];
    x[k] += (float)h;
    struct args a = {x, 0, y, 0};
    emu_launch_threads(GRID, BLOCK, kernel, &a);
    double s = 0;
    for (int i = 0; i < N; i++) s += (double)w[i] * y[i];
    return s;
}
static double loss(const float *x0, const float *w, int k, double h) { return loss_of(primal, x0, w, k, h); }

int main(void) {
    float x[N], dx[N] = {0}, y[N], dy[N], w[N];
    for (int i = 0; i < N; i++) {
        x[i] = 0.07f * (i % 13) - 0.4f;
        w[i] = dy[i] = 1.0f + 0.1f * (i % 7); /* the seed: d loss / d y */
    }
    struct args a = {x, dx, y, dy};
    emu_launch_threads(GRID, BLOCK, gradient, &a);
    double h = 1e-2;
    int edges[] = {BLOCK - 1, BLOCK, 2 * BLOCK - 1, 2 * BLOCK, N - 1};
    for (int k = 0; k < N; k += 5)
        check_close("d/dx", dx[k], (loss(x, w, k, h) - loss(x, w, k, -h)) / (2 * h), FLOAT_RTOL, FLOAT_ATOL);
    for (int e = 0; e < 5; e++) {
        int k = edges[e];
        check_close("d/dx edge", dx[k], (loss(x, w, k, h) - loss(x, w, k, -h)) / (2 * h), FLOAT_RTOL, FLOAT_ATOL);
    }
    float sdx[N] = {0};
    for (int i = 0; i < N; i++) dy[i] = w[i];
    struct args s = {x, sdx, y, dy};
    emu_launch_threads(GRID, BLOCK, staged_gradient, &s);
    for (int k = 0; k < N; k += 7)
        check_close("staged d/dx", sdx[k], (loss_of(staged_primal, x, w, k, h) - loss_of(staged_primal, x, w, k, -h)) / (2 * h),
                    FLOAT_RTOL, FLOAT_ATOL);
    check_close("staged y", y[N - 1], (double)x[N - 1] * x[N - 1] * x[N - 1], FLOAT_RTOL, FLOAT_ATOL);
    return zyg_report();
}
#endif
