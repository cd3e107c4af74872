// The GPU benchmark bench/gpu/nbody.cu (the softened potential energy of each body, one
// thread per body looping over all bodies; its gradient kernel asks zyg for the gradient of
// the per-thread body with __enzyme_autodiff: atomics into every body's shadow, a loop tape
// that outgrows its 512 inline bytes into device malloc chunks) at a small size: the device
// side through zyg at -O2 and -O0 (and through the pass plugin at -O2, as the benchmark is
// built), ptxas for sm_70, 80 and 90, then the same kernel IR on the emulated grid against
// the forces computed in double, central differences of the primal kernel, and the hand-
// written gradient.
// REQUIRES: ptxas, cuda-headers
// RUN: %cuda-root %t.cuda
// RUN: %clang -x cuda --cuda-path=%t.cuda --cuda-gpu-arch=sm_70 --cuda-device-only -nocudalib -Wno-unknown-cuda-version -DZYG_BENCH_NO_MAIN -O2 -S -emit-llvm %S/../../bench/gpu/nbody.cu -o %t.ll
// RUN: %zyg grad %t.ll -o %t.grad.ll
// RUN: %zyg compile %t.grad.ll -o %t.70.ptx --target nvptx64 --gpu sm_70
// RUN: %ptxas -arch=sm_70 %t.70.ptx -o %t.70.cubin
// RUN: %zyg compile %t.grad.ll -o %t.80.ptx --target nvptx64 --gpu sm_80
// RUN: %ptxas -arch=sm_80 %t.80.ptx -o %t.80.cubin
// RUN: %zyg compile %t.grad.ll -o %t.90.ptx --target nvptx64 --gpu sm_90
// RUN: %ptxas -arch=sm_90 %t.90.ptx -o %t.90.cubin
// RUN: python3 %S/../bin/ptx-to-host.py %t.grad.ll > %t.host.ll
// RUN: %clang -x c -O1 -pthread -I %include %s -x ir %t.host.ll -lm -o %t.exe
// RUN: %t.exe | FileCheck %s
// RUN: %clang -x cuda --cuda-path=%t.cuda --cuda-gpu-arch=sm_70 --cuda-device-only -nocudalib -Wno-unknown-cuda-version -DZYG_BENCH_NO_MAIN -O0 -S -emit-llvm %S/../../bench/gpu/nbody.cu -o %t.O0.ll
// RUN: %zyg grad %t.O0.ll -o %t.O0.grad.ll
// RUN: %zyg compile %t.O0.grad.ll -o %t.O0.ptx --target nvptx64 --gpu sm_90
// RUN: %ptxas -arch=sm_90 %t.O0.ptx -o %t.O0.cubin
// RUN: python3 %S/../bin/ptx-to-host.py %t.O0.grad.ll > %t.O0.host.ll
// RUN: %clang -x c -O1 -pthread -I %include %s -x ir %t.O0.host.ll -lm -o %t.O0.exe
// RUN: %t.O0.exe | FileCheck %s
// RUN: %clang -x cuda --cuda-path=%t.cuda --cuda-gpu-arch=sm_90 --cuda-device-only -nocudalib -Wno-unknown-cuda-version -DZYG_BENCH_NO_MAIN -fpass-plugin=%plugin -O2 -S -emit-llvm %S/../../bench/gpu/nbody.cu -o %t.plugin.ll
// RUN: python3 %S/../bin/ptx-to-host.py %t.plugin.ll > %t.plugin.host.ll
// RUN: %clang -x c -O1 -pthread -I %include %s -x ir %t.plugin.host.ll -lm -o %t.plugin.exe
// RUN: %t.plugin.exe | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
#include <math.h>
#include "zyg_check.h"
#include "zyg_gpu_emu.h"
void nbody_primal(const float *px, const float *py, const float *pz, const float *m, float *e, int n, float eps2);
void nbody_grad(const float *px, float *dpx, const float *py, float *dpy, const float *pz, float *dpz, const float *m,
                float *e, float *de, int n, float eps2);
void nbody_grad_hand(const float *px, float *dpx, const float *py, float *dpy, const float *pz, float *dpz,
                     const float *m, const float *de, int n, float eps2);
float __nv_sqrtf(float x) { return sqrtf(x); }

enum { N = 150, BLOCK = 64, GRID = (N + BLOCK - 1) / BLOCK };
static const float EPS2 = 0.01f;
static float p[3][N], g[3][N], gh[3][N], m[N], e[N], de[N], seed[N];

static double loss(void) {
    EMU_LAUNCH(GRID, BLOCK, nbody_primal(p[0], p[1], p[2], m, e, N, EPS2));
    double l = 0;
    for (int i = 0; i < N; i++)
        l += (double)seed[i] * e[i];
    return l;
}

int main(void) {
    for (int i = 0; i < N; i++) {
        p[0][i] = sinf(1.3f * i), p[1][i] = cosf(0.7f * i + 0.1f), p[2][i] = sinf(0.31f * i * i);
        m[i] = 0.5f + 0.01f * (i % 100);
        seed[i] = de[i] = 0.5f + 0.005f * i;
    }
    EMU_LAUNCH(GRID, BLOCK, nbody_grad(p[0], g[0], p[1], g[1], p[2], g[2], m, e, de, N, EPS2));
    EMU_LAUNCH(GRID, BLOCK, nbody_grad_hand(p[0], gh[0], p[1], gh[1], p[2], gh[2], m, seed, N, EPS2));
    for (int i = 0; i < N; i++) {
        check_close("de consumed", de[i], 0.0, 0, 0);
        double want[3] = {0, 0, 0};
        for (int j = 0; j < N; j++) {
            double d[3], q = EPS2;
            for (int c = 0; c < 3; c++)
                d[c] = (double)p[c][i] - p[c][j], q += d[c] * d[c];
            for (int c = 0; c < 3; c++)
                want[c] -= ((double)seed[i] + seed[j]) * m[i] * m[j] * pow(q, -1.5) * d[c];
        }
        for (int c = 0; c < 3; c++) {
            check_close("dp", g[c][i], want[c], FLOAT_RTOL, FLOAT_ATOL);
            check_close("dp hand", gh[c][i], want[c], FLOAT_RTOL, FLOAT_ATOL);
        }
    }
    double l = 0;
    for (int i = 0; i < N; i++)
        l += (double)seed[i] * e[i];
    check_close("loss after the gradient", l, loss(), 1e-6, 1e-6);
    int coords[] = {0, 1, 63, 64, 100, N - 1};
    for (unsigned k = 0; k < sizeof coords / sizeof *coords; k++)
        for (int c = 0; c < 3; c++) {
            int i = coords[k];
            float p0 = p[c][i], h = 1e-2f;
            p[c][i] = p0 + h;
            double lp = loss();
            p[c][i] = p0 - h;
            double lm = loss();
            p[c][i] = p0;
            check_close("dp vs central difference", g[c][i], (lp - lm) / (2.0 * h), 1e-2, 1e-2);
        }
    return zyg_report();
}
