// Pointers into shared memory as values: a loop walks a shared array with a pointer, and a
// select picks one of two shared elements. Their shadows are pointers into the shared
// shadow, so they keep address space 3 (a select of `ptr addrspace(3)` shadows, tape
// slots of that type), and the module passes LLVM's verifier and ptxas. Run on the threaded
// emulated grid (one block) and checked against finite differences.
// REQUIRES: ptxas
// RUN: %clang --target=nvptx64-nvidia-cuda -march=sm_70 -Xclang -target-feature -Xclang +ptx75 -O2 -S -emit-llvm %s -o %t.ll
// RUN: %zyg grad %t.ll --fn walk -o %t.grad.ll
// RUN: FileCheck --check-prefix=IR %s < %t.grad.ll
// RUN: %zyg compile %t.grad.ll -o %t.70.ptx --target nvptx64 --gpu sm_70
// RUN: %zyg compile %t.grad.ll -o %t.90.ptx --target nvptx64 --gpu sm_90
// RUN: %ptxas -arch=sm_70 %t.70.ptx -o %t.70.cubin
// RUN: %ptxas -arch=sm_90 %t.90.ptx -o %t.90.cubin
// RUN: python3 %S/../bin/ptx-to-host.py %t.grad.ll > %t.host.ll
// RUN: %clang -O1 -pthread -DZYG_HOST_DRIVER -I %include %s %t.host.ll -lm -o %t.exe
// RUN: %t.exe | FileCheck %s
// IR-LABEL: define ptx_kernel void @walk_grad(
// IR: select i1 {{.*}}, ptr addrspace(3) {{.*}}, ptr addrspace(3)
// IR: atomicrmw fadd ptr addrspace(3)
// CHECK-NOT: FAIL
// CHECK: ALL OK
#ifndef ZYG_HOST_DRIVER
#define SIZE 64
__attribute__((address_space(3))) static float buf[SIZE];

__attribute__((nvptx_kernel)) void walk(const float *x, float *y, int pick) {
    int t = __nvvm_read_ptx_sreg_tid_x();
    buf[t] = x[t] * x[t];
    __syncthreads();
    float acc = 0;
    for (__attribute__((address_space(3))) float *p = buf + (t % 4); p < buf + SIZE; p += 4)
        acc += *p * *p;
    __attribute__((address_space(3))) float *q = pick > t ? &buf[t] : &buf[SIZE - 1 - t];
    y[t] = acc + *q;
}
#else
#include "zyg_check.h"
#include "zyg_gpu_emu.h"
void walk(const float *x, float *y, int pick);
void walk_grad(const float *x, float *dx, float *y, float *dy, int pick);

enum { N = 64, PICK = 20 };

struct args { const float *x; float *dx, *y, *dy; };
static void primal(void *p) { struct args *a = p; walk(a->x, a->y, PICK); }
static void gradient(void *p) { struct args *a = p; walk_grad(a->x, a->dx, a->y, a->dy, PICK); }

static double loss(const float *x0, const float *w, int k, double h) {
    float x[N], y[N];
    for (int i = 0; i < N; i++) x[i] = x0[i];
    x[k] += (float)h;
    struct args a = {x, 0, y, 0};
    emu_launch_threads(1, N, primal, &a);
    double s = 0;
    for (int i = 0; i < N; i++) s += (double)w[i] * y[i];
    return s;
}

int main(void) {
    float x[N], dx[N] = {0}, y[N], dy[N], w[N];
    for (int i = 0; i < N; i++) {
        x[i] = 0.04f * (i % 10) - 0.2f;
        w[i] = dy[i] = 0.5f + 0.1f * (i % 4);
    }
    struct args a = {x, dx, y, dy};
    emu_launch_threads(1, N, gradient, &a);
    double h = 2e-3; /* x^4 terms: a smaller step keeps the differences' own error small */
    for (int k = 0; k < N; k += 3)
        check_close("d/dx", dx[k], (loss(x, w, k, h) - loss(x, w, k, -h)) / (2 * h), FLOAT_RTOL, FLOAT_ATOL);
    return zyg_report();
}
#endif
