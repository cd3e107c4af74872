// Forward mode in GPU code. A kernel exported in forward mode (`zyg grad --fn blocksum --mode
// forward`): a block sum of squares through shared memory with a tree reduction and barriers,
// whose tangent kernel keeps the shared array's tangents in shared memory too; and a kernel
// whose threads each loop and call a device function, exported the same way; a saxpy whose
// float scalar is `out`, so followed by its tangent. Then
// `__enzyme_fwddiff` inside device code (a per-thread Newton step with the slope from forward
// mode). The kernel IR runs on the emulated grid (a POSIX thread per GPU thread, a barrier per
// block, shared memory filled with NaNs first) and is checked against closed forms and finite
// differences, from device code compiled at -O2 and at -O0; the PTX goes through ptxas.
// REQUIRES: ptxas
// RUN: %clang --target=nvptx64-nvidia-cuda -march=sm_70 -Xclang -target-feature -Xclang +ptx75 -O2 -S -emit-llvm %s -o %t.ll
// RUN: %zyg grad %t.ll --fn blocksum --mode forward -o %t.1.ll
// RUN: %zyg grad %t.1.ll --fn series --mode forward -o %t.2.ll
// RUN: %zyg grad %t.2.ll --fn saxpy --mode forward --args out,dup,dup,const -o %t.grad.ll
// RUN: FileCheck --check-prefix=IR %s < %t.grad.ll
// RUN: %zyg compile %t.grad.ll -o %t.70.ptx --target nvptx64 --gpu sm_70
// RUN: %zyg compile %t.grad.ll -o %t.90.ptx --target nvptx64 --gpu sm_90
// RUN: %ptxas -arch=sm_70 %t.70.ptx -o %t.70.cubin
// RUN: %ptxas -arch=sm_90 %t.90.ptx -o %t.90.cubin
// RUN: python3 %S/../bin/ptx-to-host.py %t.grad.ll > %t.host.ll
// RUN: %clang -O1 -pthread -DZYG_HOST_DRIVER -I %include %s %t.host.ll -lm -o %t.exe
// RUN: %t.exe | FileCheck %s
// The same from device code compiled at -O0:
// RUN: %clang --target=nvptx64-nvidia-cuda -march=sm_70 -Xclang -target-feature -Xclang +ptx75 -O0 -S -emit-llvm %s -o %t.O0.ll
// RUN: %zyg grad %t.O0.ll --fn blocksum --mode forward -o %t.O0.1.ll
// RUN: %zyg grad %t.O0.1.ll --fn series --mode forward -o %t.O0.2.ll
// RUN: %zyg grad %t.O0.2.ll --fn saxpy --mode forward --args out,dup,dup,const -o %t.O0.grad.ll
// RUN: %zyg compile %t.O0.grad.ll -o %t.O0.ptx --target nvptx64 --gpu sm_70
// RUN: %ptxas -arch=sm_70 %t.O0.ptx -o %t.O0.cubin
// RUN: python3 %S/../bin/ptx-to-host.py %t.O0.grad.ll > %t.O0.host.ll
// RUN: %clang -O1 -pthread -DZYG_HOST_DRIVER -I %include %s %t.O0.host.ll -lm -o %t.O0.exe
// RUN: %t.O0.exe | FileCheck %s
// The tangent of the shared array is shared memory; both exports are kernels.
// IR-DAG: @__zyg_shadow_buf = internal {{.*}}addrspace(3) global [256 x float]
// IR-DAG: define ptx_kernel void @blocksum_fwd(
// IR-DAG: define ptx_kernel void @series_fwd(
// IR-DAG: define ptx_kernel void @saxpy_fwd(float {{.*}}, float {{.*}}, ptr
// CHECK-NOT: FAIL
// CHECK: ALL OK
#ifndef ZYG_HOST_DRIVER
float __enzyme_fwddiff(void *, ...);
extern int enzyme_const;
float expf(float);
float sinf(float);
float cosf(float);

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

__attribute__((noinline)) static float term(float x, int k) { return sinf(k * x) / k + 0.01f * expf(x) * k; }

/* y[i] = sum_k term(x[i] * w[i], k) for k = 1..m: a loop per thread through a device call. */
__attribute__((nvptx_kernel)) void series(const float *x, const float *w, float *y, int n, int m) {
    int i = __nvvm_read_ptx_sreg_ctaid_x() * __nvvm_read_ptx_sreg_ntid_x() + __nvvm_read_ptx_sreg_tid_x();
    if (i >= n) return;
    float s = 0;
    for (int k = 1; k <= m; k++) s += term(x[i] * w[i], k);
    y[i] = s;
}

__attribute__((nvptx_kernel)) void saxpy(float a, const float *x, float *y, int n) {
    int i = __nvvm_read_ptx_sreg_ctaid_x() * __nvvm_read_ptx_sreg_ntid_x() + __nvvm_read_ptx_sreg_tid_x();
    if (i < n) y[i] = a * x[i] + y[i] * y[i];
}

static float f(float x, float a) { return x * x * x + 0.1f * expf(x) - a; }

__attribute__((nvptx_kernel)) void newton(const float *a, float *x, float *slope, int n) {
    int i = __nvvm_read_ptx_sreg_ctaid_x() * __nvvm_read_ptx_sreg_ntid_x() + __nvvm_read_ptx_sreg_tid_x();
    if (i >= n) return;
    float d = __enzyme_fwddiff((void *)f, x[i], 1.0f, enzyme_const, a[i]);
    slope[i] = d;
    x[i] = x[i] - f(x[i], a[i]) / d;
}
#else
#include <math.h>
#include "zyg_check.h"
#include "zyg_gpu_emu.h"
void blocksum(const float *x, float *y, int n);
void blocksum_fwd(const float *x, const float *dx, float *y, float *dy, int n);
void series(const float *x, const float *w, float *y, int n, int m);
void series_fwd(const float *x, const float *dx, const float *w, const float *dw, float *y, float *dy, int n, int m);
void newton(const float *a, float *x, float *slope, int n);
void saxpy_fwd(float a, float da, const float *x, const float *dx, float *y, float *dy, int n);

enum { N = 75, BLOCK = 32, GRID = (N + BLOCK - 1) / BLOCK, M = 6 };

struct sums { const float *x, *dx; float *y, *dy; };
static void sum_tangent(void *p) { struct sums *a = p; blocksum_fwd(a->x, a->dx, a->y, a->dy, N); }

struct ser { const float *x, *dx, *w, *dw; float *y, *dy; };
static void ser_primal(void *p) { struct ser *a = p; series(a->x, a->w, a->y, N, M); }
static void ser_tangent(void *p) { struct ser *a = p; series_fwd(a->x, a->dx, a->w, a->dw, a->y, a->dy, N, M); }

int main(void) {
    float x[N], dx[N], w[N], dw[N], y[N], dy[N];
    for (int i = 0; i < N; i++) {
        x[i] = 0.05f * (i % 17) - 0.4f;
        dx[i] = 0.3f * cosf(0.7f * i);
        w[i] = 0.5f + 0.01f * i;
        dw[i] = (i % 3) - 1.0f;
    }
    /* blocksum: dy[b] = sum over the block of 2 x dx. */
    struct sums s = {x, dx, y, dy};
    emu_launch_threads(GRID, BLOCK, sum_tangent, &s);
    for (int b = 0; b < GRID; b++) {
        double want = 0, tangent = 0;
        for (int i = b * BLOCK; i < N && i < (b + 1) * BLOCK; i++) {
            want += (double)x[i] * x[i];
            tangent += 2.0 * x[i] * dx[i];
        }
        check_close("blocksum y", y[b], want, FLOAT_RTOL, FLOAT_ATOL);
        check_close("blocksum dy", dy[b], tangent, FLOAT_RTOL, FLOAT_ATOL);
    }
    /* series: against central differences along (dx, dw), in double on the host. */
    struct ser a = {x, dx, w, dw, y, dy};
    emu_launch_threads(GRID, BLOCK, ser_tangent, &a);
    float yp[N], ym[N], xp[N], xm[N], wp[N], wm[N];
    float h = 1e-2f;
    for (int i = 0; i < N; i++) {
        xp[i] = x[i] + h * dx[i];
        xm[i] = x[i] - h * dx[i];
        wp[i] = w[i] + h * dw[i];
        wm[i] = w[i] - h * dw[i];
    }
    struct ser ap = {xp, 0, wp, 0, yp, 0}, am = {xm, 0, wm, 0, ym, 0};
    emu_launch_threads(GRID, BLOCK, ser_primal, &ap);
    emu_launch_threads(GRID, BLOCK, ser_primal, &am);
    for (int i = 0; i < N; i++) {
        double u = (double)x[i] * w[i], du = (double)dx[i] * w[i] + (double)x[i] * dw[i], want = 0;
        for (int k = 1; k <= M; k++) want += (cos(k * u) + 0.01 * exp(u) * k) * du;
        check_close("series dy (closed form)", dy[i], want, FLOAT_RTOL, FLOAT_ATOL);
        check_close("series dy (differences)", dy[i], (yp[i] - ym[i]) / (2 * h), 2e-2, 2e-3);
    }
    /* saxpy: dy = da x + a dx + 2 y dy (y's tangent in, then out). */
    {
        float yy[N], dyy[N], y0[N], dy0[N], av = 1.5f, dav = -0.25f;
        for (int i = 0; i < N; i++) {
            yy[i] = y0[i] = 0.1f * i - 2.0f;
            dyy[i] = dy0[i] = 0.5f - 0.02f * i;
        }
        EMU_LAUNCH(GRID, BLOCK, saxpy_fwd(av, dav, x, dx, yy, dyy, N));
        for (int i = 0; i < N; i++) {
            check_close("saxpy y", yy[i], (double)av * x[i] + (double)y0[i] * y0[i], FLOAT_RTOL, FLOAT_ATOL);
            check_close("saxpy dy", dyy[i], (double)dav * x[i] + (double)av * dx[i] + 2.0 * y0[i] * dy0[i], FLOAT_RTOL,
                        FLOAT_ATOL);
        }
    }
    /* __enzyme_fwddiff in device code. */
    float aa[N], xx[N], slope[N];
    for (int i = 0; i < N; i++) {
        aa[i] = 0.5f + 0.2f * i;
        xx[i] = 1.0f + 0.05f * i;
    }
    float x0[N];
    for (int i = 0; i < N; i++) x0[i] = xx[i];
    EMU_LAUNCH(GRID, BLOCK, newton(aa, xx, slope, N));
    for (int i = 0; i < N; i++) {
        check_close("newton df/dx", slope[i], 3.0 * x0[i] * x0[i] + 0.1 * exp(x0[i]), FLOAT_RTOL, FLOAT_ATOL);
        double fx = (double)x0[i] * x0[i] * x0[i] + 0.1 * exp(x0[i]) - aa[i];
        check_close("newton step", xx[i], x0[i] - fx / (3.0 * x0[i] * x0[i] + 0.1 * exp(x0[i])), FLOAT_RTOL, FLOAT_ATOL);
    }
    return zyg_report();
}
#endif
