// Single-source CUDA with dynamic shared memory in its most common form: one `extern
// __shared__ char smem[]` carved into float arrays (`float *a = (float *)smem; float *b = a +
// blockDim.x;`). zyg gives the region a shadow because floats are stored into it: its second
// half, in a gradient (or tangent) kernel launched with twice the primal's dynamic bytes.
// Kernels: two block sums in one tree reduction (barriers per step), the results combined per
// element; a device function sharing values through the region, differentiated by
// `__enzyme_autodiff` inside a kernel (every thread of the block makes the request); and the
// tangent kernel (forward mode). The device side is compiled by clang's CUDA mode, at -O2
// and -O0, its PTX goes through ptxas for sm_70, 80 and 90, and the kernel IR runs on the
// emulated grid against finite differences.
// REQUIRES: ptxas, cuda-headers
// RUN: %cuda-root %t.cuda
// RUN: %clang -x cuda --cuda-path=%t.cuda --cuda-gpu-arch=sm_70 --cuda-device-only -nocudalib -Wno-unknown-cuda-version -O2 -S -emit-llvm %s -o %t.ll
// RUN: %zyg grad %t.ll -o %t.1.ll
// RUN: %zyg grad %t.1.ll --fn moments --args dup,dup,const -o %t.2.ll
// RUN: %zyg grad %t.2.ll --mode forward --fn moments --args dup,dup,const -o %t.grad.ll
// RUN: FileCheck --check-prefix=IR %s < %t.grad.ll
// RUN: %zyg compile %t.grad.ll -o %t.70.ptx --target nvptx64 --gpu sm_70
// RUN: %ptxas -arch=sm_70 %t.70.ptx -o %t.70.cubin
// RUN: %zyg compile %t.grad.ll -o %t.80.ptx --target nvptx64 --gpu sm_80
// RUN: %ptxas -arch=sm_80 %t.80.ptx -o %t.80.cubin
// RUN: %zyg compile %t.grad.ll -o %t.90.ptx --target nvptx64 --gpu sm_90
// RUN: %ptxas -arch=sm_90 %t.90.ptx -o %t.90.cubin
// RUN: python3 %S/../bin/ptx-to-host.py %t.grad.ll > %t.host.ll
// RUN: %clang -x c -O1 -pthread -DZYG_HOST_DRIVER -I %include %s -x ir %t.host.ll -lm -o %t.exe
// RUN: %t.exe | FileCheck %s
// The same from device code compiled at -O0:
// RUN: %clang -x cuda --cuda-path=%t.cuda --cuda-gpu-arch=sm_70 --cuda-device-only -nocudalib -Wno-unknown-cuda-version -O0 -S -emit-llvm %s -o %t.O0.ll
// RUN: %zyg grad %t.O0.ll -o %t.O0.1.ll
// RUN: %zyg grad %t.O0.1.ll --fn moments --args dup,dup,const -o %t.O0.2.ll
// RUN: %zyg grad %t.O0.2.ll --mode forward --fn moments --args dup,dup,const -o %t.O0.grad.ll
// RUN: %zyg compile %t.O0.grad.ll -o %t.O0.ptx --target nvptx64 --gpu sm_70
// RUN: %ptxas -arch=sm_70 %t.O0.ptx -o %t.O0.cubin
// RUN: python3 %S/../bin/ptx-to-host.py %t.O0.grad.ll > %t.O0.host.ll
// RUN: %clang -x c -O1 -pthread -DZYG_HOST_DRIVER -I %include %s -x ir %t.O0.host.ll -lm -o %t.O0.exe
// RUN: %t.O0.exe | FileCheck %s
// IR-LABEL: define ptx_kernel void @moments_grad(
// IR: call i32 @llvm.nvvm.read.ptx.sreg.dynamic_smem_size()
// IR-LABEL: define ptx_kernel void @moments_fwd(
// IR: call i32 @llvm.nvvm.read.ptx.sreg.dynamic_smem_size()
// CHECK-NOT: FAIL
// CHECK: ALL OK
#ifndef ZYG_HOST_DRIVER
extern "C" __device__ float __enzyme_autodiff(void *, ...);
extern __shared__ char smem[];

// y_i = x_i * (sum of squares of the block) - (sum of the block)^2 / n.
extern "C" __global__ void moments(const float *x, float *y, int n) {
    float *a = (float *)smem, *b = a + blockDim.x;
    int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    float v = i < n ? x[i] : 0.0f;
    a[t] = v * v;
    b[t] = v;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) {
            a[t] += a[t + s];
            b[t] += b[t + s];
        }
        __syncthreads();
    }
    if (i < n) y[i] = v * a[0] - b[0] * b[0] / n;
}

// Thread t shares x^2 and reads its neighbour's (wrapping in the block).
__device__ float neighbours(float x) {
    float *s = (float *)smem;
    int t = threadIdx.x;
    s[t] = x * x;
    __syncthreads();
    float r = s[t] * expf(-s[(t + 1) % blockDim.x]);
    __syncthreads();
    return r;
}

extern "C" __global__ void values(const float *x, float *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = neighbours(x[i]);
}

extern "C" __global__ void slopes(const float *x, float *slope) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    slope[i] = __enzyme_autodiff((void *)neighbours, x[i]);
}
#else
#include <math.h>
#include <string.h>
#include "zyg_check.h"
#include "zyg_gpu_emu.h"
void moments(const float *x, float *y, int n);
void moments_grad(const float *x, float *dx, float *y, float *dy, int n);
void moments_fwd(const float *x, const float *dx, float *y, float *dy, int n);
void values(const float *x, float *out);
void slopes(const float *x, float *slope);
/* CUDA's `expf` in device code is libdevice's `__nv_expf` (linked when the PTX is made). */
float __nv_expf(float x) { return expf(x); }

enum { N = 70, BLOCK = 32, GRID = (N + BLOCK - 1) / BLOCK, BYTES = 2 * BLOCK * sizeof(float) };

struct args { const float *x; float *dx, *y, *dy; };
static void run_moments(void *p) { struct args *a = p; moments(a->x, a->y, N); }
static void run_grad(void *p) { struct args *a = p; moments_grad(a->x, a->dx, a->y, a->dy, N); }
static void run_fwd(void *p) { struct args *a = p; moments_fwd(a->x, a->dx, a->y, a->dy, N); }
static void run_values(void *p) { struct args *a = p; values(a->x, a->y); }
static void run_slopes(void *p) { struct args *a = p; slopes(a->x, a->y); }

static void launch(void (*fn)(void *), int bytes, const float *x, float *dx, float *y, float *dy) {
    struct args a = {x, dx, y, dy};
    emu_launch_threads_dynamic(GRID, BLOCK, bytes, fn, &a);
}

/* sum_i w_i y_i after `moments`, as a function of x[at] + h. */
static double loss(const float *x0, const float *w, int at, double h) {
    float x[N], y[N];
    memcpy(x, x0, sizeof x);
    x[at] += (float)h;
    launch(run_moments, BYTES, x, 0, y, 0);
    double s = 0;
    for (int i = 0; i < N; i++) s += (double)w[i] * y[i];
    return s;
}

/* The sum of the results of x[at]'s block of `values`, as a function of x[at] + h. */
static double block_sum(const float *x0, int at, double h) {
    float x[GRID * BLOCK], out[GRID * BLOCK];
    memcpy(x, x0, sizeof x);
    x[at] += (float)h;
    launch(run_values, BLOCK * sizeof(float), x, 0, out, 0);
    double s = 0;
    for (int i = at / BLOCK * BLOCK; i < (at / BLOCK + 1) * BLOCK; i++) s += out[i];
    return s;
}

int main(void) {
    float x[GRID * BLOCK], dx[N] = {0}, y[N], dy[N], w[N], t[N], ty[N], xp[N], xm[N], yp[N], ym[N];
    for (int i = 0; i < GRID * BLOCK; i++) x[i] = 0.06f * (i % 11) - 0.3f;
    for (int i = 0; i < N; i++) w[i] = dy[i] = 1.0f + 0.2f * (i % 7);
    launch(run_grad, 2 * BYTES, x, dx, y, dy);
    double h = 1e-2;
    for (int at = 0; at < N; at += 3)
        check_close("d/dx", dx[at], (loss(x, w, at, h) - loss(x, w, at, -h)) / (2 * h), FLOAT_RTOL, FLOAT_ATOL);
    for (int i = 0; i < N; i++) t[i] = 0.4f - 0.05f * (i % 9);
    launch(run_fwd, 2 * BYTES, x, t, y, ty);
    for (int i = 0; i < N; i++) xp[i] = x[i] + (float)h * t[i], xm[i] = x[i] - (float)h * t[i];
    launch(run_moments, BYTES, xp, 0, yp, 0);
    launch(run_moments, BYTES, xm, 0, ym, 0);
    for (int i = 0; i < N; i++) check_close("tangent", ty[i], (yp[i] - ym[i]) / (2 * h), 3 * FLOAT_RTOL, 3 * FLOAT_ATOL);
    float slope[GRID * BLOCK];
    launch(run_slopes, 2 * BLOCK * sizeof(float), x, 0, slope, 0);
    for (int at = 0; at < GRID * BLOCK; at += 5)
        check_close("d sum/dx", slope[at], (block_sum(x, at, h) - block_sum(x, at, -h)) / (2 * h), FLOAT_RTOL, FLOAT_ATOL);
    return zyg_report();
}
#endif
