// Kernels whose threads share memory: a 3-point stencil (thread i reads x[i-1], x[i] and
// x[i+1], so the shadow of x gets atomic adds) and a per-thread loop (Horner's rule over
// coefficients every thread reads, with a tape for the loop). Checked as
// kernel_elementwise.c: PTX assembled by ptxas, the kernel IR run on an emulated grid.
// REQUIRES: ptxas
// RUN: %clang --target=nvptx64-nvidia-cuda -march=sm_70 -Xclang -target-feature -Xclang +ptx75 -O2 -S -emit-llvm %s -o %t.ll
// RUN: %zyg grad %t.ll --fn stencil -o %t.s.ll
// RUN: %zyg grad %t.s.ll --fn horner -o %t.grad.ll
// RUN: FileCheck --check-prefix=IR %s < %t.grad.ll
// RUN: %zyg compile %t.grad.ll -o %t.80.ptx --target nvptx64 --gpu sm_80
// RUN: %ptxas -arch=sm_80 %t.80.ptx -o %t.80.cubin
// RUN: python3 %S/../bin/ptx-to-host.py %t.grad.ll > %t.host.ll
// RUN: %clang -O1 -pthread -DZYG_HOST_DRIVER -I %include %s %t.host.ll -lm -o %t.exe
// RUN: %t.exe | FileCheck %s
// IR: define ptx_kernel void @stencil_grad(
// IR: define ptx_kernel void @horner_grad(
// IR: atomicrmw fadd
// CHECK-NOT: FAIL
// CHECK: ALL OK
#ifndef ZYG_HOST_DRIVER
float tanhf(float);

__attribute__((nvptx_kernel)) void stencil(const float *x, float *y, int n) {
    int i = __nvvm_read_ptx_sreg_ctaid_x() * __nvvm_read_ptx_sreg_ntid_x() + __nvvm_read_ptx_sreg_tid_x();
    if (i > 0 && i < n - 1)
        y[i] = tanhf(0.25f * x[i - 1] + 0.5f * x[i] * x[i] + 0.25f * x[i + 1]);
}

__attribute__((nvptx_kernel)) void horner(const float *c, int degree, const float *t, float *p, int n) {
    int i = __nvvm_read_ptx_sreg_ctaid_x() * __nvvm_read_ptx_sreg_ntid_x() + __nvvm_read_ptx_sreg_tid_x();
    if (i >= n)
        return;
    float acc = c[degree];
    for (int k = degree - 1; k >= 0; k--)
        acc = acc * t[i] + c[k];
    p[i] = acc;
}
#else
#include "zyg_check.h"
#include "zyg_gpu_emu.h"
void stencil(const float *x, float *y, int n);
void stencil_grad(const float *x, float *dx, float *y, float *dy, int n);
void horner(const float *c, int degree, const float *t, float *p, int n);
void horner_grad(const float *c, float *dc, int degree, const float *t, float *dt, float *p, float *dp, int n);

enum { N = 29, BLOCK = 8, GRID = (N + BLOCK - 1) / BLOCK, DEG = 5 };

static double stencil_loss(const float *x0, int k, double h) {
    float x[N], y[N] = {0};
    for (int i = 0; i < N; i++) x[i] = x0[i];
    x[k] += (float)h;
    EMU_LAUNCH(GRID, BLOCK, stencil(x, y, N));
    double s = 0;
    for (int i = 0; i < N; i++) s += (1.0 + 0.1 * i) * y[i];
    return s;
}

static double horner_loss(const float *c0, const float *t0, int which, int k, double h) {
    float c[DEG + 1], t[N], p[N];
    for (int i = 0; i <= DEG; i++) c[i] = c0[i];
    for (int i = 0; i < N; i++) t[i] = t0[i];
    (which ? t : c)[k] += (float)h;
    EMU_LAUNCH(GRID, BLOCK, horner(c, DEG, t, p, N));
    double s = 0;
    for (int i = 0; i < N; i++) s += (1.0 + 0.05 * i) * p[i];
    return s;
}

int main(void) {
    float x[N], dx[N] = {0}, y[N] = {0}, dy[N];
    for (int i = 0; i < N; i++) {
        x[i] = 0.9f * (float)((i * 7) % 11) / 11.0f - 0.3f;
        dy[i] = 1.0f + 0.1f * i;
    }
    EMU_LAUNCH(GRID, BLOCK, stencil_grad(x, dx, y, dy, N));
    double h = 1e-2;
    for (int k = 0; k < N; k++)
        check_close("dstencil/dx", dx[k], (stencil_loss(x, k, h) - stencil_loss(x, k, -h)) / (2 * h), FLOAT_RTOL, FLOAT_ATOL);

    float c[DEG + 1] = {0.5f, -0.3f, 0.2f, 0.1f, -0.05f, 0.02f}, dc[DEG + 1] = {0}, t[N], dt[N] = {0}, p[N], dp[N];
    for (int i = 0; i < N; i++) {
        t[i] = 0.07f * i - 1.0f;
        dp[i] = 1.0f + 0.05f * i;
    }
    EMU_LAUNCH(GRID, BLOCK, horner_grad(c, dc, DEG, t, dt, p, dp, N));
    for (int k = 0; k <= DEG; k++)
        check_close("dhorner/dc", dc[k], (horner_loss(c, t, 0, k, h) - horner_loss(c, t, 0, k, -h)) / (2 * h), FLOAT_RTOL, FLOAT_ATOL);
    for (int k = 0; k < N; k += 4)
        check_close("dhorner/dt", dt[k], (horner_loss(c, t, 1, k, h) - horner_loss(c, t, 1, k, -h)) / (2 * h), FLOAT_RTOL, FLOAT_ATOL);

    /* A loop long enough to outgrow the stack's chunk in the tape: the tape grows on. */
    enum { BIG = 300 };
    static float cb[BIG + 1], dcb[BIG + 1];
    for (int k = 0; k <= BIG; k++) cb[k] = 0.01f * (float)((k * 13) % 7) - 0.02f;
    float tb[N], dtb[N] = {0}, pb[N], dpb[N];
    for (int i = 0; i < N; i++) {
        tb[i] = 0.02f * i - 0.3f;
        dpb[i] = 1.0f;
    }
    EMU_LAUNCH(GRID, BLOCK, horner_grad(cb, dcb, BIG, tb, dtb, pb, dpb, N));
    for (int i = 0; i < N; i += 5) {
        /* d p / d t = p'(t), summed from the coefficients directly. */
        double want = 0, tp = 1;
        for (int k = 1; k <= BIG; k++, tp *= tb[i]) want += k * (double)cb[k] * tp;
        check_close("dhorner300/dt", dtb[i], want, FLOAT_RTOL, FLOAT_ATOL);
    }
    return zyg_report();
}
#endif
