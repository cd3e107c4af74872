// The GPU benchmark bench/gpu/xsbench.cu (a cross-section lookup: per lookup, for each
// nuclide of its material, a binary search in the nuclide's energy grid, interpolation of
// five cross sections, accumulation of density x cross section; its gradient kernel asks
// zyg for the gradient of the per-thread body with __enzyme_autodiff, in the table and the
// densities) at a small size: the device side through zyg at -O2 and -O0 (and through the
// pass plugin at -O2, as the benchmark is built), ptxas for sm_70, 80 and 90, then the same
// kernel IR on the emulated grid against the derivative computed in double on the host (the
// lookups' energies and materials drawn as the kernel draws them), central differences of
// the primal kernel, and the hand-written gradient.
// REQUIRES: ptxas, cuda-headers
// RUN: %cuda-root %t.cuda
// RUN: %clang -x cuda --cuda-path=%t.cuda --cuda-gpu-arch=sm_70 --cuda-device-only -nocudalib -Wno-unknown-cuda-version -DZYG_BENCH_NO_MAIN -O2 -S -emit-llvm %S/../../bench/gpu/xsbench.cu -o %t.ll
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
// RUN: %clang -x cuda --cuda-path=%t.cuda --cuda-gpu-arch=sm_70 --cuda-device-only -nocudalib -Wno-unknown-cuda-version -DZYG_BENCH_NO_MAIN -O0 -S -emit-llvm %S/../../bench/gpu/xsbench.cu -o %t.O0.ll
// RUN: %zyg grad %t.O0.ll -o %t.O0.grad.ll
// RUN: %zyg compile %t.O0.grad.ll -o %t.O0.ptx --target nvptx64 --gpu sm_90
// RUN: %ptxas -arch=sm_90 %t.O0.ptx -o %t.O0.cubin
// RUN: python3 %S/../bin/ptx-to-host.py %t.O0.grad.ll > %t.O0.host.ll
// RUN: %clang -x c -O1 -pthread -I %include %s -x ir %t.O0.host.ll -lm -o %t.O0.exe
// RUN: %t.O0.exe | FileCheck %s
// RUN: %clang -x cuda --cuda-path=%t.cuda --cuda-gpu-arch=sm_90 --cuda-device-only -nocudalib -Wno-unknown-cuda-version -DZYG_BENCH_NO_MAIN -fpass-plugin=%plugin -O2 -S -emit-llvm %S/../../bench/gpu/xsbench.cu -o %t.plugin.ll
// RUN: python3 %S/../bin/ptx-to-host.py %t.plugin.ll > %t.plugin.host.ll
// RUN: %clang -x c -O1 -pthread -I %include %s -x ir %t.plugin.host.ll -lm -o %t.plugin.exe
// RUN: %t.plugin.exe | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
#include <math.h>
#include "zyg_check.h"
#include "zyg_gpu_emu.h"
void xs_primal(const float *egrid, const float *xs, const int *mat_count, const int *mat_nuc, const float *dens,
               float *out, int lookups, int g, unsigned seed);
void xs_grad(const float *egrid, const float *xs, float *dxs, const int *mat_count, const int *mat_nuc,
             const float *dens, float *ddens, float *out, float *dout, int lookups, int g, unsigned seed);
void xs_grad_hand(const float *egrid, const float *xs, float *dxs, const int *mat_count, const int *mat_nuc,
                  const float *dens, float *ddens, const float *dout, int lookups, int g, unsigned seed);

/* bench/gpu/xsbench.cu's sizes of the material table, and its sampling of a lookup. */
enum { NXS = 5, NMAT = 8, MAXNUC = 32 };
static unsigned xs_hash(unsigned x) {
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    return x;
}
static void xs_sample(int i, unsigned seed, float *energy, int *mat) {
    unsigned h = xs_hash((unsigned)i * 2654435761U ^ seed);
    *energy = (float)(h >> 8) * (1.0f / 16777216.0f);
    *mat = (int)(xs_hash(h) % NMAT);
}

enum { NUC = 5, G = 37, L = 300, BLOCK = 128, GRID = (L + BLOCK - 1) / BLOCK };
static const unsigned SEED = 99u;
static float egrid[NUC * G], xs[NUC * G * NXS], dxs[NUC * G * NXS], dxsh[NUC * G * NXS];
static float dens[NMAT * MAXNUC], ddens[NMAT * MAXNUC], ddensh[NMAT * MAXNUC];
static int mat_count[NMAT] = {24, 6, 4, 12, 16, 8, 32, 10}, mat_nuc[NMAT * MAXNUC];
static float out[L * NXS], dout[L * NXS], seed[L * NXS];
static double want_xs[NUC * G * NXS], want_dens[NMAT * MAXNUC];

static double loss(void) {
    EMU_LAUNCH(GRID, BLOCK, xs_primal(egrid, xs, mat_count, mat_nuc, dens, out, L, G, SEED));
    double l = 0;
    for (int p = 0; p < L * NXS; p++)
        l += (double)seed[p] * out[p];
    return l;
}

static void fd(const char *what, float *x, double got) {
    float x0 = *x, h = 1e-2f;
    *x = x0 + h;
    double lp = loss();
    *x = x0 - h;
    double lm = loss();
    *x = x0;
    check_close(what, got, (lp - lm) / (2.0 * h), 1e-3, 1e-3);
}

int main(void) {
    for (int u = 0; u < NUC; u++)
        for (int j = 0; j < G; j++) /* increasing, 0 and 1 at the ends, unevenly spaced */
            egrid[u * G + j] = powf((float)j / (G - 1), 1.0f + 0.3f * u);
    for (int p = 0; p < NUC * G * NXS; p++)
        xs[p] = 0.2f + 0.7f * fabsf(sinf(0.37f * p));
    for (int m = 0; m < NMAT; m++)
        for (int k = 0; k < mat_count[m]; k++) {
            mat_nuc[m * MAXNUC + k] = (m * 7 + k * 13) % NUC;
            dens[m * MAXNUC + k] = 0.1f + 0.05f * ((m + 3 * k) % 11);
        }
    for (int p = 0; p < L * NXS; p++)
        seed[p] = dout[p] = 0.5f + 0.25f * cosf(0.1f * p);
    /* d(seed . out): each lookup adds seed_c d (1 - f) to the lower point's cross section
     * c, seed_c d f to the upper's, and seed_c times the interpolated cross section to the
     * density. */
    for (int i = 0; i < L; i++) {
        float e;
        int m;
        xs_sample(i, SEED, &e, &m);
        for (int k = 0; k < mat_count[m]; k++) {
            int u = mat_nuc[m * MAXNUC + k], lo = 0;
            while (lo + 1 < G - 1 && egrid[u * G + lo + 1] <= e)
                lo++;
            double f = ((double)e - egrid[u * G + lo]) / ((double)egrid[u * G + lo + 1] - egrid[u * G + lo]);
            double d = dens[m * MAXNUC + k];
            for (int c = 0; c < NXS; c++) {
                int a = (u * G + lo) * NXS + c;
                want_xs[a] += seed[i * NXS + c] * d * (1 - f);
                want_xs[a + NXS] += seed[i * NXS + c] * d * f;
                want_dens[m * MAXNUC + k] += seed[i * NXS + c] * (xs[a] + f * (xs[a + NXS] - xs[a]));
            }
        }
    }
    EMU_LAUNCH(GRID, BLOCK, xs_grad(egrid, xs, dxs, mat_count, mat_nuc, dens, ddens, out, dout, L, G, SEED));
    EMU_LAUNCH(GRID, BLOCK, xs_grad_hand(egrid, xs, dxsh, mat_count, mat_nuc, dens, ddensh, seed, L, G, SEED));
    for (int p = 0; p < L * NXS; p++)
        check_close("dout consumed", dout[p], 0.0, 0, 0);
    int nonzero = 0;
    for (int p = 0; p < NUC * G * NXS; p++) {
        check_close("dxs", dxs[p], want_xs[p], FLOAT_RTOL, FLOAT_ATOL);
        check_close("dxs hand", dxsh[p], want_xs[p], FLOAT_RTOL, FLOAT_ATOL);
        nonzero += want_xs[p] != 0;
    }
    check_close("table entries the lookups touch", nonzero > 100, 1, 0, 0);
    for (int p = 0; p < NMAT * MAXNUC; p++) {
        check_close("ddens", ddens[p], want_dens[p], FLOAT_RTOL, FLOAT_ATOL);
        check_close("ddens hand", ddensh[p], want_dens[p], FLOAT_RTOL, FLOAT_ATOL);
    }
    double l = 0;
    for (int p = 0; p < L * NXS; p++)
        l += (double)seed[p] * out[p];
    check_close("loss after the gradient", l, loss(), 1e-6, 1e-6);
    for (int p = 0; p < NUC * G * NXS; p += 23)
        fd("dxs vs central difference", &xs[p], dxs[p]);
    for (int m = 0; m < NMAT; m++) {
        fd("ddens vs central difference", &dens[m * MAXNUC], ddens[m * MAXNUC]);
        fd("ddens vs central difference", &dens[m * MAXNUC + mat_count[m] - 1], ddens[m * MAXNUC + mat_count[m] - 1]);
    }
    return zyg_report();
}
