// Gradient of a CUDA kernel (C with NVVM builtins): `zyg grad --fn` makes a gradient
// kernel of the same grid, `zyg compile` lowers it to PTX that ptxas assembles for
// sm_70/80/90, and the same kernel IR, retargeted to the CPU, runs over an emulated grid
// and is checked against finite differences. x[i] and y[i] belong to thread i, so their
// shadows are updated without atomics; the scalar `a` is `out`: every thread adds its part
// into d_a atomically.
// REQUIRES: ptxas
// RUN: %clang --target=nvptx64-nvidia-cuda -march=sm_70 -Xclang -target-feature -Xclang +ptx75 -O2 -S -emit-llvm %s -o %t.ll
// RUN: %zyg grad %t.ll --fn saxpy_sin --args out,dup,dup,const -o %t.grad.ll
// RUN: FileCheck --check-prefix=IR %s < %t.grad.ll
// RUN: %zyg compile %t.grad.ll -o %t.70.ptx --target nvptx64 --gpu sm_70
// RUN: %zyg compile %t.grad.ll -o %t.90.ptx --target nvptx64 --gpu sm_90
// RUN: %ptxas -arch=sm_70 %t.70.ptx -o %t.70.cubin
// RUN: %ptxas -arch=sm_90 %t.90.ptx -o %t.90.cubin
// RUN: python3 %S/../bin/ptx-to-host.py %t.grad.ll > %t.host.ll
// RUN: %clang -O1 -pthread -DZYG_HOST_DRIVER -I %include %s %t.host.ll -lm -o %t.exe
// RUN: %t.exe | FileCheck %s
// IR: define ptx_kernel void @saxpy_sin_grad(
// IR: atomicrmw fadd
// CHECK-NOT: FAIL
// CHECK: ALL OK
#ifndef ZYG_HOST_DRIVER
float sinf(float);
float expf(float);

__attribute__((nvptx_kernel)) void saxpy_sin(float a, const float *x, float *y, int n) {
    int i = __nvvm_read_ptx_sreg_ctaid_x() * __nvvm_read_ptx_sreg_ntid_x() + __nvvm_read_ptx_sreg_tid_x();
    if (i < n)
        y[i] = a * sinf(x[i]) + y[i] * expf(0.5f * x[i]);
}
#else
#include "zyg_check.h"
#include "zyg_gpu_emu.h"
void saxpy_sin(float a, const float *x, float *y, int n);
void saxpy_sin_grad(float a, const float *x, float *dx, float *y, float *dy, int n, float *da);

enum { N = 37, BLOCK = 8, GRID = (N + BLOCK - 1) / BLOCK };

/* sum_i w_i y_i after the kernel, as a function of a and x[k] (double, for differences). */
static double loss(float a, const float *x0, const float *y0, const float *w, int k, double h, int which) {
    float x[N], y[N];
    for (int i = 0; i < N; i++) x[i] = x0[i], y[i] = y0[i];
    if (which == 0) a += (float)h;
    else if (which == 1) x[k] += (float)h;
    else y[k] += (float)h;
    EMU_LAUNCH(GRID, BLOCK, saxpy_sin(a, x, y, N));
    double s = 0;
    for (int i = 0; i < N; i++) s += (double)w[i] * y[i];
    return s;
}

int main(void) {
    float a = 0.7f, x[N], y[N], w[N], dx[N] = {0}, dy[N], da = 0;
    for (int i = 0; i < N; i++) {
        x[i] = 0.1f * i - 1.5f;
        y[i] = 0.05f * i + 0.2f;
        w[i] = 1.0f + 0.1f * (i % 5);
        dy[i] = w[i]; /* the seed: d loss / d y_out */
    }
    float yc[N];
    for (int i = 0; i < N; i++) yc[i] = y[i];
    EMU_LAUNCH(GRID, BLOCK, saxpy_sin_grad(a, x, dx, yc, dy, N, &da));
    double h = 1e-2;
    check_close("d/da", da, (loss(a, x, y, w, 0, h, 0) - loss(a, x, y, w, 0, -h, 0)) / (2 * h), FLOAT_RTOL, FLOAT_ATOL);
    for (int k = 0; k < N; k += 3) {
        check_close("d/dx", dx[k], (loss(a, x, y, w, k, h, 1) - loss(a, x, y, w, k, -h, 1)) / (2 * h), FLOAT_RTOL, FLOAT_ATOL);
        check_close("d/dy", dy[k], (loss(a, x, y, w, k, h, 2) - loss(a, x, y, w, k, -h, 2)) / (2 * h), FLOAT_RTOL, FLOAT_ATOL);
    }
    return zyg_report();
}
#endif
