// Split mode in kernels with tapes sized before the launch: a kernel asks for the tape's
// size (`__enzyme_augmentsize`), the host allocates one tape per thread, `fwd_kernel` runs
// each thread's augmented forward pass into `tapes + i * size` (`enzyme_allocated`,
// `enzyme_tape`) and `rev_kernel`, launched later, each thread's reverse pass from there,
// adding into a shared `dtheta` (atomically). The tapes stay the program's: a second round
// reuses them. The device side is compiled by clang's CUDA mode, zyg fills the requests in,
// the PTX goes through ptxas for sm_70, 80 and 90, and the same kernel IR runs on the
// emulated grid against central differences, with device `malloc` and `free` counted
// (renamed in the host copy): a loop whose records fit the stack's first chunk inside the
// tape (512 bytes) takes no memory at all, a longer one takes chunks from `malloc`, which
// the reverse pass frees, and no tape is ever freed.
// REQUIRES: ptxas, cuda-headers
// RUN: %cuda-root %t.cuda
// RUN: %clang -x cuda --cuda-path=%t.cuda --cuda-gpu-arch=sm_70 --cuda-device-only -nocudalib -Wno-unknown-cuda-version -O2 -S -emit-llvm %s -o %t.ll
// RUN: %zyg grad %t.ll -o %t.grad.ll
// RUN: %zyg compile %t.grad.ll -o %t.70.ptx --target nvptx64 --gpu sm_70
// RUN: %ptxas -arch=sm_70 %t.70.ptx -o %t.70.cubin
// RUN: %zyg compile %t.grad.ll -o %t.80.ptx --target nvptx64 --gpu sm_80
// RUN: %ptxas -arch=sm_80 %t.80.ptx -o %t.80.cubin
// RUN: %zyg compile %t.grad.ll -o %t.90.ptx --target nvptx64 --gpu sm_90
// RUN: %ptxas -arch=sm_90 %t.90.ptx -o %t.90.cubin
// RUN: python3 %S/../bin/ptx-to-host.py %t.grad.ll | sed -e 's/@malloc(/@emu_counted_malloc(/g' -e 's/@free(/@emu_counted_free(/g' > %t.host.ll
// RUN: %clang -x c -O1 -pthread -DZYG_HOST_DRIVER -I %include %s -x ir %t.host.ll -lm -o %t.exe
// RUN: %t.exe | FileCheck %s
// A size too small (given at run time) stops the kernel: a trap, SIGILL on the emulated grid.
// RUN: not --crash %t.exe too-small
// And at -O0:
// RUN: %clang -x cuda --cuda-path=%t.cuda --cuda-gpu-arch=sm_70 --cuda-device-only -nocudalib -Wno-unknown-cuda-version -O0 -S -emit-llvm %s -o %t.O0.ll
// RUN: %zyg grad %t.O0.ll -o %t.O0.grad.ll
// RUN: %zyg compile %t.O0.grad.ll -o %t.O0.ptx --target nvptx64 --gpu sm_70
// RUN: %ptxas -arch=sm_70 %t.O0.ptx -o %t.O0.cubin
// RUN: python3 %S/../bin/ptx-to-host.py %t.O0.grad.ll | sed -e 's/@malloc(/@emu_counted_malloc(/g' -e 's/@free(/@emu_counted_free(/g' > %t.O0.host.ll
// RUN: %clang -x c -O1 -pthread -DZYG_HOST_DRIVER -I %include %s -x ir %t.O0.host.ll -lm -o %t.O0.exe
// RUN: %t.O0.exe | FileCheck %s
// Through the pass plugin (the device side of the one-command build, libdevice linked), at
// -O0 for sm_80 and -O2 for sm_90: the size kernel stores a constant at -O2.
// RUN: %clangxx -x cuda --cuda-path=%t.cuda --cuda-gpu-arch=sm_80 --cuda-device-only -Wno-unknown-cuda-version -fpass-plugin=%plugin -O0 -S %s -o %t.p0.ptx
// RUN: %ptxas -arch=sm_80 %t.p0.ptx -o %t.p0.cubin
// RUN: %clangxx -x cuda --cuda-path=%t.cuda --cuda-gpu-arch=sm_90 --cuda-device-only -Wno-unknown-cuda-version -fpass-plugin=%plugin -O2 -S %s -o %t.p2.ptx
// RUN: %ptxas -arch=sm_90 %t.p2.ptx -o %t.p2.cubin
// RUN: FileCheck %s --check-prefix=PTX < %t.p2.ptx
// PTX-NOT: __enzyme_
// PTX-LABEL: .entry tape_size(
// PTX: st.global.b64 {{.*}}, {{[1-9][0-9]*}};
// PTX-NOT: __enzyme_
// CHECK-NOT: FAIL
// CHECK: ALL OK
#ifndef ZYG_HOST_DRIVER
extern "C" __device__ unsigned long long __enzyme_augmentsize(void *, ...);
extern "C" __device__ float __enzyme_augmentfwd(void *, ...);
extern "C" __device__ void __enzyme_reverse(void *, ...);
extern "C" __device__ int enzyme_dup, enzyme_const, enzyme_allocated, enzyme_tape;

// One point's loss after m steps of a recurrence: the loop's records go on a stack.
__device__ float loss(const float *theta, const float *x, int m) {
    float h = 0.0f;
    for (int k = 0; k < m; k++)
        h = tanhf(theta[0] * h + theta[1] * x[k]);
    return h * h;
}

extern "C" __global__ void tape_size(unsigned long long *out) {
    *out = __enzyme_augmentsize((void *)loss, enzyme_dup, enzyme_const, enzyme_const);
}

extern "C" __global__ void fwd_kernel(const float *theta, float *dtheta, const float *x, int m, int n, char *tapes,
                                      unsigned long long size, float *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    out[i] = __enzyme_augmentfwd((void *)loss, enzyme_allocated, size, enzyme_tape, tapes + i * size, enzyme_dup, theta,
                                 dtheta, enzyme_const, x + i * m, enzyme_const, m);
}

extern "C" __global__ void rev_kernel(const float *theta, float *dtheta, const float *x, int m, int n, char *tapes,
                                      unsigned long long size, const float *seed) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    __enzyme_reverse((void *)loss, enzyme_dup, theta, dtheta, enzyme_const, x + i * m, enzyme_const, m, seed[i],
                     enzyme_allocated, size, enzyme_tape, tapes + i * size);
}
#else
#include <math.h>
#include <stdlib.h>
#include "zyg_check.h"
#include "zyg_gpu_emu.h"
void tape_size(unsigned long long *out);
void fwd_kernel(const float *theta, float *dtheta, const float *x, int m, int n, char *tapes, unsigned long long size,
                float *out);
void rev_kernel(const float *theta, float *dtheta, const float *x, int m, int n, char *tapes, unsigned long long size,
                const float *seed);

/* CUDA's `tanhf` in device code is libdevice's `__nv_tanhf` (linked when the PTX is made). */
float __nv_tanhf(float x) { return tanhf(x); }

// The device's malloc and free, as the host copy calls them.
static int mallocs, frees, tapes_freed;
static char *arena_lo, *arena_hi;
void *emu_counted_malloc(unsigned long n) {
    mallocs++;
    return malloc(n);
}
void emu_counted_free(void *p) {
    if (p) {
        frees++;
        tapes_freed += (char *)p >= arena_lo && (char *)p < arena_hi;
    }
    free(p);
}

static double host_loss(const double *theta, const float *x, int m) {
    double h = 0.0;
    for (int k = 0; k < m; k++)
        h = tanh(theta[0] * h + theta[1] * x[k]);
    return h * h;
}

enum { N = 21, MAXM = 300 };

// One round: n threads, m steps each; returns after checking results and gradients.
static void round_of(int m, char *tapes, unsigned long long size, int expect_malloc) {
    static float x[N * MAXM];
    float theta[2] = {0.7f, -0.4f}, dtheta[2] = {0, 0}, out[N], seed[N];
    for (int i = 0; i < N * m; i++)
        x[i] = 0.9f * sinf(0.37f * i + 0.1f);
    for (int i = 0; i < N; i++)
        seed[i] = 0.5f + 0.1f * (i % 5);
    mallocs = frees = 0;
    EMU_LAUNCH(3, 8, fwd_kernel(theta, dtheta, x, m, N, tapes, size, out));
    int forward_mallocs = mallocs;
    double th[2] = {theta[0], theta[1]};
    for (int i = 0; i < N; i++)
        check_close("loss", out[i], host_loss(th, x + i * m, m), FLOAT_RTOL, FLOAT_ATOL);
    EMU_LAUNCH(3, 8, rev_kernel(theta, dtheta, x, m, N, tapes, size, seed));
    for (int j = 0; j < 2; j++) {
        double want = 0.0, h = 1e-6;
        for (int i = 0; i < N; i++) {
            double up[2] = {th[0], th[1]}, down[2] = {th[0], th[1]};
            up[j] += h;
            down[j] -= h;
            want += seed[i] * (host_loss(up, x + i * m, m) - host_loss(down, x + i * m, m)) / (2 * h);
        }
        check_close("dloss/dtheta", dtheta[j], want, 1e-3, 1e-4);
    }
    printf("m=%d: %d device mallocs in the forward pass, %d in all, %d frees\n", m, forward_mallocs, mallocs, frees);
    check_close(expect_malloc ? "records outgrow the tape: chunks taken" : "records fit the tape: no malloc",
                forward_mallocs > 0, expect_malloc, 0, 0);
    check_close("every chunk freed", frees, mallocs, 0, 0);
    check_close("no tape freed", tapes_freed, 0, 0, 0);
}

int main(int argc, char **argv) {
    (void)argv;
    unsigned long long size = 0;
    EMU_LAUNCH(1, 1, tape_size(&size));
    printf("tape of %llu bytes per thread\n", size);
    if (argc > 1) {
        // Each thread's tape 8 bytes short: the first thread traps before writing its tape.
        static float theta[2] = {0.7f, -0.4f}, dtheta[2], x[N * 4], out[N];
        char *small = malloc(N * size);
        EMU_LAUNCH(3, 8, fwd_kernel(theta, dtheta, x, 4, N, small, size - 8, out));
        printf("FAIL: not stopped\n");
        return 0;
    }
    check_close("tape holds a stack's first chunk", size >= 512, 1, 0, 0);
    char *tapes = malloc(N * size);
    arena_lo = tapes;
    arena_hi = tapes + N * size;
    round_of(8, tapes, size, 0);
    round_of(MAXM, tapes, size, 1);
    round_of(5, tapes, size, 0);  // the same tapes again
    free(tapes);
    return zyg_report();
}
#endif
