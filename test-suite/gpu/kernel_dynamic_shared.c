// Dynamic shared memory (`extern __shared__`, in C an external zero-length array in
// address space 3, sized by the launch). The gradient (and tangent) kernels are launched with
// twice the primal's dynamic bytes: the second half is the shadow of the first, zeroed by the
// block's threads before a barrier, and every name of the region (they all start at its
// start) has its shadow at the same offset. Kernels: a tree reduction with a barrier per
// step; a tile with halos (136 bytes for the primal, so the gradient's launch rounds the half
// up to a multiple of 16: 2 * 144); two arrays of the region read and written through two
// names; `__enzyme_autodiff` inside a kernel of a device function sharing values through the
// region (every thread of the block makes the request); and tangent kernels (forward mode).
// The kernel IR runs on the threaded emulated grid (a buffer of NaNs for the dynamic region
// before each block) against finite differences and closed forms, from -O2 and -O0 device
// code; a gradient launched with a size that is not a multiple of 32 bytes stops (llvm.trap).
// REQUIRES: ptxas
// RUN: %clang --target=nvptx64-nvidia-cuda -march=sm_70 -Xclang -target-feature -Xclang +ptx75 -O2 -S -emit-llvm %s -o %t.ll
// RUN: %zyg grad %t.ll -o %t.1.ll
// RUN: %zyg grad %t.1.ll --fn blocksum --fn smooth --fn pairs -o %t.2.ll
// RUN: %zyg grad %t.2.ll --mode forward --fn blocksum --fn smooth -o %t.grad.ll
// RUN: FileCheck --check-prefix=IR %s < %t.grad.ll
// RUN: %zyg grad %t.ll --fn blocksum -o %t.h.ll --header %t.h
// RUN: FileCheck --check-prefix=HEADER %s < %t.h
// RUN: %zyg compile %t.grad.ll -o %t.70.ptx --target nvptx64 --gpu sm_70
// RUN: %zyg compile %t.grad.ll -o %t.80.ptx --target nvptx64 --gpu sm_80
// RUN: %zyg compile %t.grad.ll -o %t.90.ptx --target nvptx64 --gpu sm_90
// RUN: %ptxas -arch=sm_70 %t.70.ptx -o %t.70.cubin
// RUN: %ptxas -arch=sm_80 %t.80.ptx -o %t.80.cubin
// RUN: %ptxas -arch=sm_90 %t.90.ptx -o %t.90.cubin
// RUN: FileCheck --check-prefix=PTX %s < %t.70.ptx
// RUN: python3 %S/../bin/ptx-to-host.py %t.grad.ll > %t.host.ll
// RUN: %clang -O1 -pthread -DZYG_HOST_DRIVER -I %include %s %t.host.ll -lm -o %t.exe
// RUN: %t.exe | FileCheck %s
// RUN: not --crash %t.exe misaligned
// RUN: not --crash %t.exe empty
// The same from device code compiled at -O0:
// RUN: %clang --target=nvptx64-nvidia-cuda -march=sm_70 -Xclang -target-feature -Xclang +ptx75 -O0 -S -emit-llvm %s -o %t.O0.ll
// RUN: %zyg grad %t.O0.ll -o %t.O0.1.ll
// RUN: %zyg grad %t.O0.1.ll --fn blocksum --fn smooth --fn pairs -o %t.O0.2.ll
// RUN: %zyg grad %t.O0.2.ll --mode forward --fn blocksum --fn smooth -o %t.O0.grad.ll
// RUN: %zyg compile %t.O0.grad.ll -o %t.O0.ptx --target nvptx64 --gpu sm_70
// RUN: %ptxas -arch=sm_70 %t.O0.ptx -o %t.O0.cubin
// RUN: python3 %S/../bin/ptx-to-host.py %t.O0.grad.ll > %t.O0.host.ll
// RUN: %clang -O1 -pthread -DZYG_HOST_DRIVER -I %include %s %t.O0.host.ll -lm -o %t.O0.exe
// RUN: %t.O0.exe | FileCheck %s
// No shadow global: the shadow is the region's second half, from %dynamic_smem_size, and
// the gradient checks the launch's size first.
// IR-NOT: @__zyg_shadow_dyn
// IR-NOT: @__zyg_shadow_other
// IR-LABEL: define ptx_kernel void @blocksum_grad(
// IR: call i32 @llvm.nvvm.read.ptx.sreg.dynamic_smem_size()
// IR: call void @llvm.trap()
// IR: atomicrmw fadd ptr addrspace(3)
// The exported gradient's header states the launch contract.
// HEADER: launch it with 2 * N bytes of dynamic shared memory where `blocksum` is launched with N, N rounded up to a multiple of 16
// HEADER-NEXT: void blocksum_grad(
// PTX: .extern .shared .align {{[0-9]+}} .b8 dyn[];
// PTX: %dynamic_smem_size
// PTX: atom.shared.add.f32
// CHECK-NOT: FAIL
// CHECK: ALL OK
#ifndef ZYG_HOST_DRIVER
float __enzyme_autodiff(void *, ...);
float tanhf(float);
float sinf(float);
float cosf(float);
__attribute__((address_space(3))) extern float dyn[];
__attribute__((address_space(3))) extern float other[]; /* a second name of the same memory */
#define TID ((int)__nvvm_read_ptx_sreg_tid_x())
#define NTID ((int)__nvvm_read_ptx_sreg_ntid_x())
#define CTAID ((int)__nvvm_read_ptx_sreg_ctaid_x())

/* y[b] = the sum of x_i^2 over block b: a tree with a barrier after every step. */
__attribute__((nvptx_kernel)) void blocksum(const float *x, float *y, int n) {
    int t = TID, i = CTAID * NTID + t;
    dyn[t] = i < n ? x[i] * x[i] : 0.0f;
    __syncthreads();
    for (int s = NTID / 2; s > 0; s /= 2) {
        if (t < s) dyn[t] += dyn[t + s];
        __syncthreads();
    }
    if (t == 0) y[CTAID] = dyn[0];
}

/* A tile of NTID + 2 values (a halo on each side, 0 outside [0, n)): y_i from x_{i-1..i+1}. */
__attribute__((nvptx_kernel)) void smooth(const float *x, float *y, int n) {
    int t = TID, i = CTAID * NTID + t;
    dyn[t + 1] = i < n ? x[i] : 0.0f;
    if (t == 0) dyn[0] = i > 0 && i - 1 < n ? x[i - 1] : 0.0f;
    if (t == NTID - 1) dyn[NTID + 1] = i + 1 < n ? x[i + 1] : 0.0f;
    __syncthreads();
    if (i < n) y[i] = 0.25f * dyn[t] * dyn[t + 1] + 0.5f * sinf(dyn[t + 1]) + dyn[t + 2] * dyn[t + 2];
}

/* Two arrays of NTID values in the region, each written through one name and read
 * through the other: a[t] = x_i^2 through `dyn`, b[t] = sin x_i through `other`. */
__attribute__((nvptx_kernel)) void pairs(const float *x, float *y, int n) {
    int t = TID, i = CTAID * NTID + t;
    dyn[t] = i < n ? x[i] * x[i] : 0.0f;
    other[NTID + t] = i < n ? sinf(x[i]) : 0.0f;
    __syncthreads();
    if (i < n) y[i] = other[(t + 1) % NTID] * dyn[NTID + t] + other[t];
}

/* A device function sharing values between the block's threads through the region. */
static float f(float x) {
    int t = TID;
    dyn[t] = x * x;
    __syncthreads();
    float r = dyn[t] * tanhf(dyn[(t + 1) % NTID]);
    __syncthreads(); /* read before a later call overwrites it */
    return r;
}

__attribute__((nvptx_kernel)) void values(const float *x, float *out) { out[CTAID * NTID + TID] = f(x[CTAID * NTID + TID]); }

__attribute__((nvptx_kernel)) void slopes(const float *x, float *slope) {
    int i = CTAID * NTID + TID;
    slope[i] = __enzyme_autodiff((void *)f, x[i]);
}
#else
#include <math.h>
#include <string.h>
#include "zyg_check.h"
#include "zyg_gpu_emu.h"
void blocksum(const float *x, float *y, int n);
void blocksum_grad(const float *x, float *dx, float *y, float *dy, int n);
void blocksum_fwd(const float *x, const float *dx, float *y, float *dy, int n);
void smooth(const float *x, float *y, int n);
void smooth_grad(const float *x, float *dx, float *y, float *dy, int n);
void smooth_fwd(const float *x, const float *dx, float *y, float *dy, int n);
void pairs(const float *x, float *y, int n);
void pairs_grad(const float *x, float *dx, float *y, float *dy, int n);
void values(const float *x, float *out);
void slopes(const float *x, float *slope);

enum { N = 75, BLOCK = 32, GRID = (N + BLOCK - 1) / BLOCK, F = sizeof(float) };
/* The primal's dynamic bytes, and the gradient's: twice that rounded up to 16. */
#define GRADIENT_BYTES(b) (2 * (((b) + 15) / 16 * 16))

typedef void kernel(const float *, float *, int);
typedef void gradient(const float *, float *, float *, float *, int);
struct args { const float *x; float *dx, *y, *dy; kernel *k; gradient *g; };
static void run_kernel(void *p) { struct args *a = p; a->k(a->x, a->y, N); }
static void run_gradient(void *p) { struct args *a = p; a->g(a->x, a->dx, a->y, a->dy, N); }
static void run_blocksum_fwd(void *p) { struct args *a = p; blocksum_fwd(a->x, a->dx, a->y, a->dy, N); }
static void run_smooth_fwd(void *p) { struct args *a = p; smooth_fwd(a->x, a->dx, a->y, a->dy, N); }

/* sum_j w_j y_j after kernel k (outputs: `outs` of them), as a function of x[at] + h. */
static double loss(kernel *k, int bytes, int outs, const float *x0, const float *w, int at, double h) {
    float x[N], y[N];
    memcpy(x, x0, sizeof x);
    x[at] += (float)h;
    struct args a = {x, 0, y, 0, k, 0};
    emu_launch_threads_dynamic(GRID, BLOCK, bytes, run_kernel, &a);
    double s = 0;
    for (int j = 0; j < outs; j++) s += (double)w[j] * y[j];
    return s;
}

static void check_gradient(const char *what, kernel *k, gradient *g, int bytes, int outs, const float *x) {
    float dx[N] = {0}, y[N], dy[N], w[N];
    for (int j = 0; j < outs; j++) w[j] = dy[j] = 1.0f + 0.25f * (j % 5);
    struct args a = {x, dx, y, dy, k, g};
    emu_launch_threads_dynamic(GRID, BLOCK, GRADIENT_BYTES(bytes), run_gradient, &a);
    double h = 1e-2;
    for (int at = 0; at < N; at += (at % BLOCK == BLOCK - 1 || at % BLOCK == 0) ? 1 : 6) {
        double want = (loss(k, bytes, outs, x, w, at, h) - loss(k, bytes, outs, x, w, at, -h)) / (2 * h);
        check_close(what, dx[at], want, FLOAT_RTOL, FLOAT_ATOL);
    }
}

/* The tangent kernel against the directional finite difference along dx. */
static void check_tangent(const char *what, kernel *k, void (*fwd)(void *), int bytes, int outs, const float *x) {
    float dx[N], y[N], dy[N], xp[N], xm[N], yp[N], ym[N];
    for (int i = 0; i < N; i++) dx[i] = 0.5f - 0.03f * (i % 11);
    struct args a = {x, dx, y, dy, k, 0};
    emu_launch_threads_dynamic(GRID, BLOCK, GRADIENT_BYTES(bytes), fwd, &a);
    double h = 1e-2;
    for (int i = 0; i < N; i++) xp[i] = x[i] + (float)h * dx[i], xm[i] = x[i] - (float)h * dx[i];
    struct args p = {xp, 0, yp, 0, k, 0}, m = {xm, 0, ym, 0, k, 0};
    emu_launch_threads_dynamic(GRID, BLOCK, bytes, run_kernel, &p);
    emu_launch_threads_dynamic(GRID, BLOCK, bytes, run_kernel, &m);
    for (int j = 0; j < outs; j++) check_close(what, dy[j], (yp[j] - ym[j]) / (2 * h), 3 * FLOAT_RTOL, 3 * FLOAT_ATOL);
}

struct request { const float *x; float *out; };
static void run_values(void *p) { struct request *a = p; values(a->x, a->out); }
static void run_slopes(void *p) { struct request *a = p; slopes(a->x, a->out); }

/* The sum of the results of x[at]'s block (the device function's), as a function of x[at]. */
static double block_sum(const float *x0, int at, double h) {
    float x[GRID * BLOCK], out[GRID * BLOCK];
    memcpy(x, x0, sizeof x);
    x[at] += (float)h;
    struct request a = {x, out};
    emu_launch_threads_dynamic(GRID, BLOCK, BLOCK * F, run_values, &a);
    double s = 0;
    for (int i = at / BLOCK * BLOCK; i < (at / BLOCK + 1) * BLOCK; i++) s += out[i];
    return s;
}

int main(int argc, char **argv) {
    float x[GRID * BLOCK];
    for (int i = 0; i < GRID * BLOCK; i++) x[i] = 0.07f * (i % 13) - 0.4f;
    if (argc > 1) {
        /* A gradient launched with a size whose half is not a multiple of 16, or with none. */
        float dx[N] = {0}, y[N], dy[N] = {1};
        struct args a = {x, dx, y, dy, blocksum, blocksum_grad};
        emu_launch_threads_dynamic(GRID, BLOCK, strcmp(argv[1], "empty") ? BLOCK * F + 8 : 0, run_gradient, &a);
        printf("FAIL: no trap\n");
        return 0;
    }
    check_gradient("blocksum d/dx", blocksum, blocksum_grad, BLOCK * F, GRID, x);
    check_gradient("smooth d/dx", smooth, smooth_grad, (BLOCK + 2) * F, N, x);
    check_gradient("pairs d/dx", pairs, pairs_grad, 2 * BLOCK * F, N, x);
    check_tangent("blocksum tangent", blocksum, run_blocksum_fwd, BLOCK * F, GRID, x);
    check_tangent("smooth tangent", smooth, run_smooth_fwd, (BLOCK + 2) * F, N, x);
    float slope[GRID * BLOCK];
    struct request r = {x, slope};
    emu_launch_threads_dynamic(GRID, BLOCK, GRADIENT_BYTES(BLOCK * F), run_slopes, &r);
    double h = 1e-2;
    for (int at = 0; at < GRID * BLOCK; at += 5)
        check_close("d sum/dx", slope[at], (block_sum(x, at, h) - block_sum(x, at, -h)) / (2 * h), FLOAT_RTOL, FLOAT_ATOL);
    return zyg_report();
}
#endif
