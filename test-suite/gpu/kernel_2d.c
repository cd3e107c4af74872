// Kernels on a 2D grid: thread (col, row) owns element row * w + col of a row-major array
// when every access is under `col < w` (then distinct threads have distinct elements), so
// those shadows are updated without atomics (zyg-transform/src/gpu.rs). scale2d has no
// atomics at all; rowblur stages a 2D tile in shared memory (tile[ty][tx], read at the
// neighbour tx + 1 after a barrier): the tile's shadow is atomic, x's and y's are not.
// Both run on the threaded emulated grid in 2D and are checked against finite differences.
// REQUIRES: ptxas
// RUN: %clang --target=nvptx64-nvidia-cuda -march=sm_70 -Xclang -target-feature -Xclang +ptx75 -O2 -S -emit-llvm %s -o %t.ll
// RUN: %zyg grad %t.ll --fn scale2d -o %t.scale.ll
// RUN: %zyg grad %t.scale.ll --fn rowblur -o %t.grad.ll
// RUN: FileCheck --check-prefix=SCALE %s < %t.grad.ll
// RUN: FileCheck --check-prefix=BLUR %s < %t.grad.ll
// RUN: %zyg compile %t.grad.ll -o %t.70.ptx --target nvptx64 --gpu sm_70
// RUN: %zyg compile %t.grad.ll -o %t.90.ptx --target nvptx64 --gpu sm_90
// RUN: %ptxas -arch=sm_70 %t.70.ptx -o %t.70.cubin
// RUN: %ptxas -arch=sm_90 %t.90.ptx -o %t.90.cubin
// RUN: python3 %S/../bin/ptx-to-host.py %t.grad.ll > %t.host.ll
// RUN: %clang -O1 -pthread -DZYG_HOST_DRIVER -I %include %s %t.host.ll -lm -o %t.exe
// RUN: %t.exe | FileCheck %s
// SCALE-LABEL: define ptx_kernel void @scale2d_grad(
// SCALE-NOT: atomicrmw
// SCALE: ret void
// BLUR-LABEL: define ptx_kernel void @rowblur_grad(
// BLUR-NOT: atomicrmw fadd ptr %
// BLUR: atomicrmw fadd ptr addrspace(3)
// BLUR-NOT: atomicrmw fadd ptr %
// BLUR: ret void
// CHECK-NOT: FAIL
// CHECK: ALL OK
#ifndef ZYG_HOST_DRIVER
float tanhf(float);
#define BX 8
#define BY 4

__attribute__((nvptx_kernel)) void scale2d(const float *x, float *y, int w, int h) {
    int col = __nvvm_read_ptx_sreg_ctaid_x() * __nvvm_read_ptx_sreg_ntid_x() + __nvvm_read_ptx_sreg_tid_x();
    int row = __nvvm_read_ptx_sreg_ctaid_y() * __nvvm_read_ptx_sreg_ntid_y() + __nvvm_read_ptx_sreg_tid_y();
    if (row < h && col < w) {
        int i = row * w + col;
        y[i] = tanhf(x[i]) * x[i] + y[i];
    }
}

__attribute__((address_space(3))) static float tile[BY][BX];

__attribute__((nvptx_kernel)) void rowblur(const float *x, float *y, int w, int h) {
    int tx = __nvvm_read_ptx_sreg_tid_x(), ty = __nvvm_read_ptx_sreg_tid_y();
    int col = __nvvm_read_ptx_sreg_ctaid_x() * __nvvm_read_ptx_sreg_ntid_x() + tx;
    int row = __nvvm_read_ptx_sreg_ctaid_y() * __nvvm_read_ptx_sreg_ntid_y() + ty;
    int inside = row < h && col < w;
    float v = 0.0f;
    if (inside)
        v = x[row * w + col];
    tile[ty][tx] = v;
    __syncthreads();
    if (inside)
        y[row * w + col] = tile[ty][tx] * (1.0f + tile[ty][(tx + 1) % BX]);
}
#else
#include "zyg_check.h"
#include "zyg_gpu_emu.h"
void scale2d(const float *x, float *y, int w, int h);
void scale2d_grad(const float *x, float *dx, float *y, float *dy, int w, int h);
void rowblur(const float *x, float *y, int w, int h);
void rowblur_grad(const float *x, float *dx, float *y, float *dy, int w, int h);

enum { W = 21, H = 9, BX = 8, BY = 4, GX = (W + BX - 1) / BX, GY = (H + BY - 1) / BY, N = W * H };

struct args { const float *x; float *dx, *y, *dy; };
static void scale_primal(void *p) { struct args *a = p; scale2d(a->x, a->y, W, H); }
static void scale_gradient(void *p) { struct args *a = p; scale2d_grad(a->x, a->dx, a->y, a->dy, W, H); }
static void blur_primal(void *p) { struct args *a = p; rowblur(a->x, a->y, W, H); }
static void blur_gradient(void *p) { struct args *a = p; rowblur_grad(a->x, a->dx, a->y, a->dy, W, H); }

static float y_start[N];

/* sum_i w_i y_i after the kernel (y starting as y_start), as a function of x[k]. */
static double loss(void (*kernel)(void *), const float *x0, const float *w, int k, double h) {
    float x[N], y[N];
    for (int i = 0; i < N; i++) x[i] = x0[i], y[i] = y_start[i];
    x[k] += (float)h;
    struct args a = {x, 0, y, 0};
    emu_launch_threads_2d(GX, GY, BX, BY, kernel, &a);
    double s = 0;
    for (int i = 0; i < N; i++) s += (double)w[i] * y[i];
    return s;
}

static void check(const char *label, void (*primal)(void *), void (*gradient)(void *), const float *x, const float *w) {
    float dx[N] = {0}, y[N], dy[N];
    for (int i = 0; i < N; i++) y[i] = y_start[i], dy[i] = w[i]; /* the seed: d loss / d y */
    struct args a = {x, dx, y, dy};
    emu_launch_threads_2d(GX, GY, BX, BY, gradient, &a);
    double h = 1e-2;
    int picks[] = {0, 1, BX - 1, BX, W - 1, W, 2 * W + 5, BY * W + 3, N - 2, N - 1};
    for (int p = 0; p < 10; p++) {
        int k = picks[p];
        check_close(label, dx[k], (loss(primal, x, w, k, h) - loss(primal, x, w, k, -h)) / (2 * h), FLOAT_RTOL, FLOAT_ATOL);
    }
}

int main(void) {
    float x[N], w[N];
    for (int i = 0; i < N; i++) {
        x[i] = 0.06f * (i % 19) - 0.5f;
        y_start[i] = 0.03f * (i % 5);
        w[i] = 1.0f + 0.1f * (i % 6);
    }
    check("scale2d d/dx", scale_primal, scale_gradient, x, w);
    check("rowblur d/dx", blur_primal, blur_gradient, x, w);
    return zyg_report();
}
#endif
