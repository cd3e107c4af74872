// examples/cuda-launch/fit.cu on the emulated grid: its device side compiled by clang's CUDA
// mode with zyg's pass plugin (the example's own build, with -nocudalib so that libdevice's
// __nv_expf stays a call the host can make), at -O0 and -O2; the device-requested gradient
// kernel `loss_grad` (every thread adding into the shared dtheta) against the derivative
// worked out by hand and central differences of the example's `loss` kernel, at three
// points; and the PTX of the plugin's build with libdevice linked through ptxas for sm_70,
// 80 and 90.
// REQUIRES: ptxas, cuda-headers
// RUN: %cuda-root %t.cuda
// RUN: %clangxx -x cuda --cuda-path=%t.cuda --cuda-gpu-arch=sm_70 --cuda-device-only -nocudalib -DZYG_DEVICE_ONLY -Wno-unknown-cuda-version -fpass-plugin=%plugin -O0 -S -emit-llvm %S/../../examples/cuda-launch/fit.cu -o %t.O0.ll
// RUN: python3 %S/../bin/ptx-to-host.py %t.O0.ll > %t.host0.ll
// RUN: %clang -x c -O1 -pthread -I %include %s -x ir %t.host0.ll -lm -o %t.exe0
// RUN: %t.exe0 | FileCheck %s
// RUN: %clangxx -x cuda --cuda-path=%t.cuda --cuda-gpu-arch=sm_70 --cuda-device-only -nocudalib -DZYG_DEVICE_ONLY -Wno-unknown-cuda-version -fpass-plugin=%plugin -O2 -S -emit-llvm %S/../../examples/cuda-launch/fit.cu -o %t.O2.ll
// RUN: python3 %S/../bin/ptx-to-host.py %t.O2.ll > %t.host2.ll
// RUN: %clang -x c -O1 -pthread -I %include %s -x ir %t.host2.ll -lm -o %t.exe2
// RUN: %t.exe2 | FileCheck %s
// The PTX clang makes through the plugin, libdevice linked (expf inlined, the gradient's
// own math linked as clang links the source's), at -O0 and -O2, assembled for three GPUs.
// RUN: %clangxx -x cuda --cuda-path=%t.cuda --cuda-gpu-arch=sm_70 --cuda-device-only -Wno-unknown-cuda-version -fpass-plugin=%plugin -O0 -S %S/../../examples/cuda-launch/fit.cu -o %t.O0.ptx
// RUN: %ptxas -arch=sm_70 %t.O0.ptx -o %t.O0.cubin
// RUN: %clangxx -x cuda --cuda-path=%t.cuda --cuda-gpu-arch=sm_80 --cuda-device-only -Wno-unknown-cuda-version -fpass-plugin=%plugin -O2 -S %S/../../examples/cuda-launch/fit.cu -o %t.80.ptx
// RUN: %ptxas -arch=sm_80 %t.80.ptx -o %t.80.cubin
// RUN: %clangxx -x cuda --cuda-path=%t.cuda --cuda-gpu-arch=sm_90 --cuda-device-only -Wno-unknown-cuda-version -fpass-plugin=%plugin -O2 -S %S/../../examples/cuda-launch/fit.cu -o %t.90.ptx
// RUN: %ptxas -arch=sm_90 %t.90.ptx -o %t.90.cubin
// RUN: FileCheck %s --check-prefix=PTX < %t.90.ptx
// PTX: .entry loss_grad(
// PTX-NOT: __enzyme_autodiff
// PTX-NOT: call{{.*}}__nv_
// CHECK-NOT: FAIL
// CHECK: ALL OK
#include <math.h>
#include "zyg_check.h"
#include "zyg_gpu_emu.h"

void loss(const float *theta, const float *x, const float *y, float *sum, int n);
void loss_grad(const float *theta, float *dtheta, const float *x, const float *y, int n);
/* CUDA's expf is libdevice's __nv_expf (-nocudalib leaves it a call). */
float __nv_expf(float x) { return expf(x); }

enum { N = 53, NPARAM = 4, BLOCK = 16 };
static float xs[N], ys[N];

static double loss_at(const float *theta) {
    float sum = 0;
    EMU_LAUNCH((N + BLOCK - 1) / BLOCK, BLOCK, loss(theta, xs, ys, &sum, N));
    return sum;
}

int main(void) {
    for (int i = 0; i < N; i++) {
        xs[i] = -3.0f + 6.0f * i / (N - 1);
        ys[i] = 0.4f + 1.5f * expf(-xs[i] * xs[i]) + 0.1f * sinf(3.0f * i);
    }
    const float points[3][NPARAM] = {{1.0f, 0.0f, 1.0f, 0.0f}, {2.5f, -0.4f, 0.5f, 0.8f}, {1.7f, 0.6f, 1.3f, 0.2f}};
    for (int p = 0; p < 3; p++) {
        const float *theta = points[p];
        float dtheta[NPARAM] = {0};
        EMU_LAUNCH((N + BLOCK - 1) / BLOCK, BLOCK, loss_grad(theta, dtheta, xs, ys, N));
        double a = theta[0], mu = theta[1], s = theta[2], b = theta[3], hand[NPARAM] = {0};
        for (int i = 0; i < N; i++) {
            double t = (xs[i] - mu) / s, e = exp(-0.5 * t * t), r = a * e + b - ys[i];
            hand[0] += 2 * r * e;
            hand[1] += 2 * r * a * e * t / s;
            hand[2] += 2 * r * a * e * t * t / s;
            hand[3] += 2 * r;
        }
        for (int k = 0; k < NPARAM; k++) {
            float plus[NPARAM], minus[NPARAM];
            const float h = 1e-2f;
            for (int j = 0; j < NPARAM; j++)
                plus[j] = minus[j] = theta[j];
            plus[k] += h;
            minus[k] -= h;
            check_close("d loss / d theta vs hand", dtheta[k], hand[k], FLOAT_RTOL, 1e-3);
            check_close("d loss / d theta vs central", dtheta[k], (loss_at(plus) - loss_at(minus)) / (2 * h), 2e-2, 2e-2);
        }
    }
    return zyg_report();
}
