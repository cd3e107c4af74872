// A cross-section lookup kernel in the spirit of the Monte Carlo neutron transport proxy
// apps (XSBench, RSBench), written for zyg: NUC nuclides, each with its own sorted energy
// grid of G points and five cross sections per point (total, elastic, absorption, fission,
// nu-fission); NMAT materials, each a list of nuclides with densities. One thread per
// lookup (2^20): a pseudo-random energy E and material from the lookup's index; for each
// nuclide of the material, a binary search of E in the nuclide's grid, linear
// interpolation of its five cross sections, and accumulation of density x cross section
// into the five macroscopic cross sections, which the thread writes.
//
// The derivative is of seed . out with respect to the cross-section table and the
// densities (what a sensitivity study of nuclear data asks). zyg's gradient kernel asks,
// in every thread, for the gradient of the per-thread body (`xs_body`) with
// `__enzyme_autodiff`; the search is integer work on constant data, the adjoint adds
// into the table's and the densities' shadows with atomics (lookups share them). The
// hand-written gradient does the same search and the same atomics, without a tape.
#include "bench.cuh"

#define XS_BLOCK 128
#define NXS 5
#define NMAT 8
#define MAXNUC 32

__host__ __device__ inline unsigned xs_hash(unsigned x) {
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    return x;
}

// The lookup's energy in [0, 1) and material, from its index.
__host__ __device__ inline void xs_sample(int i, unsigned seed, float *energy, int *mat) {
    unsigned h = xs_hash((unsigned)i * 2654435761U ^ seed);
    *energy = (float)(h >> 8) * (1.0f / 16777216.0f);
    *mat = (int)(xs_hash(h) % NMAT);
}

// The grid interval of `e` in a nuclide's sorted grid eg[0] = 0 < ... < eg[g - 1] = 1.
__device__ inline int xs_search(const float *__restrict__ eg, int g, float e) {
    int lo = 0, hi = g - 1;
    while (hi - lo > 1) {
        int mid = (lo + hi) >> 1;
        if (eg[mid] > e)
            hi = mid;
        else
            lo = mid;
    }
    return lo;
}

__device__ void xs_body(const float *__restrict__ egrid, const float *__restrict__ xs,
                        const int *__restrict__ mat_count, const int *__restrict__ mat_nuc,
                        const float *__restrict__ dens, float *__restrict__ out, int lookups, int g, unsigned seed) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= lookups)
        return;
    float e;
    int mat;
    xs_sample(i, seed, &e, &mat);
    float macro[NXS] = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
    int count = mat_count[mat];
    for (int k = 0; k < count; k++) {
        int nuc = mat_nuc[mat * MAXNUC + k];
        float d = dens[mat * MAXNUC + k];
        const float *eg = egrid + (size_t)nuc * g;
        int lo = xs_search(eg, g, e);
        float f = (e - eg[lo]) / (eg[lo + 1] - eg[lo]);
        const float *a = xs + ((size_t)nuc * g + lo) * NXS;
        for (int c = 0; c < NXS; c++)
            macro[c] += d * (a[c] + f * (a[c + NXS] - a[c]));
    }
    for (int c = 0; c < NXS; c++)
        out[(size_t)i * NXS + c] = macro[c];
}

extern "C" __global__ void xs_primal(const float *egrid, const float *xs, const int *mat_count, const int *mat_nuc,
                                     const float *dens, float *out, int lookups, int g, unsigned seed) {
    xs_body(egrid, xs, mat_count, mat_nuc, dens, out, lookups, g, seed);
}

// dxs += d(out . dout)/dxs, ddens += d(out . dout)/ddens; dout is consumed (zeroed).
extern "C" __global__ void xs_grad(const float *egrid, const float *xs, float *dxs, const int *mat_count,
                                   const int *mat_nuc, const float *dens, float *ddens, float *out, float *dout,
                                   int lookups, int g, unsigned seed) {
    __enzyme_autodiff((void *)xs_body, enzyme_const, egrid, enzyme_dup, xs, dxs, enzyme_const, mat_count,
                      enzyme_const, mat_nuc, enzyme_dup, dens, ddens, enzyme_dup, out, dout, enzyme_const, lookups,
                      enzyme_const, g, enzyme_const, seed);
}

extern "C" __global__ void xs_grad_hand(const float *__restrict__ egrid, const float *__restrict__ xs,
                                        float *__restrict__ dxs, const int *__restrict__ mat_count,
                                        const int *__restrict__ mat_nuc, const float *__restrict__ dens,
                                        float *__restrict__ ddens, const float *__restrict__ dout, int lookups,
                                        int g, unsigned seed) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= lookups)
        return;
    float e;
    int mat;
    xs_sample(i, seed, &e, &mat);
    float s[NXS];
    for (int c = 0; c < NXS; c++)
        s[c] = dout[(size_t)i * NXS + c];
    int count = mat_count[mat];
    for (int k = 0; k < count; k++) {
        int nuc = mat_nuc[mat * MAXNUC + k];
        float d = dens[mat * MAXNUC + k];
        const float *eg = egrid + (size_t)nuc * g;
        int lo = xs_search(eg, g, e);
        float f = (e - eg[lo]) / (eg[lo + 1] - eg[lo]);
        size_t at = ((size_t)nuc * g + lo) * NXS;
        float dd = 0.0f;
        for (int c = 0; c < NXS; c++) {
            float a = xs[at + c], b = xs[at + NXS + c];
            dd += s[c] * (a + f * (b - a));
            atomicAdd(&dxs[at + c], s[c] * d * (1.0f - f));
            atomicAdd(&dxs[at + NXS + c], s[c] * d * f);
        }
        atomicAdd(&ddens[mat * MAXNUC + k], dd);
    }
}

#ifndef ZYG_BENCH_NO_MAIN
int main(int argc, char **argv) {
    BenchOptions o = bench_options(argc, argv, "--size: lookups (default 2^20, --quick 2^17)");
    bench_start();
    const int nuc = 64, g = 4096;
    const unsigned seed = 12345u;
    int lookups = (int)(o.size ? o.size : o.quick ? 1 << 17 : 1 << 20);
    // zyg's tape: a record per nuclide of the material (48 bytes at -O2, at most MAXNUC of
    // them), past 512 bytes in device malloc chunks doubling from 1 KiB; room for 8 KiB per
    // lookup (only the threads running at once hold tapes: this is a bound).
    size_t heap = (size_t)lookups * 8192;
    if (const char *s = getenv("ZYG_BENCH_MALLOC_HEAP_MB"))
        heap = (size_t)atol(s) << 20;
    CK(cudaDeviceSetLimit(cudaLimitMallocHeapSize, heap));
    Rng rng(4);
    // Energy grids: 0 and 1 at the ends, sorted random points between (strictly increasing).
    std::vector<float> egrid((size_t)nuc * g), xs((size_t)nuc * g * NXS);
    for (int u = 0; u < nuc; u++) {
        std::vector<double> pts(g - 2);
        for (auto &p : pts)
            p = rng.uniform();
        std::sort(pts.begin(), pts.end());
        float *eg = &egrid[(size_t)u * g];
        eg[0] = 0.0f, eg[g - 1] = 1.0f;
        for (int j = 1; j < g - 1; j++)
            eg[j] = std::max((float)pts[j - 1], std::nextafter(eg[j - 1], 2.0f));
        if (eg[g - 2] >= 1.0f) {
            fprintf(stderr, "FAIL: energy grid not increasing\n");
            return 1;
        }
    }
    for (auto &v : xs)
        v = (float)(0.1 + rng.uniform());
    int counts[NMAT] = {24, 6, 4, 12, 16, 8, 32, 10};
    std::vector<int> mat_count(counts, counts + NMAT), mat_nuc(NMAT * MAXNUC, 0);
    std::vector<float> dens(NMAT * MAXNUC, 0.0f);
    for (int mt = 0; mt < NMAT; mt++)
        for (int k = 0; k < counts[mt]; k++) {
            mat_nuc[mt * MAXNUC + k] = (int)((mt * 7 + k * 13) % nuc);
            dens[mt * MAXNUC + k] = (float)(0.01 + rng.uniform());
        }
    size_t nout = (size_t)lookups * NXS;
    std::vector<float> seedv(nout);
    for (auto &v : seedv)
        v = (float)(0.5 + rng.uniform());
    float *d_egrid = dev_copy(egrid), *d_xs = dev_copy(xs), *d_dens = dev_copy(dens), *d_seed = dev_copy(seedv);
    int *d_count = dev_copy(mat_count), *d_nuc = dev_copy(mat_nuc);
    float *d_out = dev_alloc<float>(nout), *d_dout = dev_alloc<float>(nout);
    float *d_dxs = dev_alloc<float>(xs.size()), *d_ddens = dev_alloc<float>(dens.size());
    float *d_dxs_hand = dev_alloc<float>(xs.size()), *d_ddens_hand = dev_alloc<float>(dens.size());
    int blocks = (lookups + XS_BLOCK - 1) / XS_BLOCK;
    auto primal = [&] { xs_primal<<<blocks, XS_BLOCK>>>(d_egrid, d_xs, d_count, d_nuc, d_dens, d_out, lookups, g, seed); };
    auto reset_grad = [&] {
        CK(cudaMemcpyAsync(d_dout, d_seed, nout * sizeof(float), cudaMemcpyDeviceToDevice));
        CK(cudaMemsetAsync(d_dxs, 0, xs.size() * sizeof(float)));
        CK(cudaMemsetAsync(d_ddens, 0, dens.size() * sizeof(float)));
    };
    auto grad = [&] {
        xs_grad<<<blocks, XS_BLOCK>>>(d_egrid, d_xs, d_dxs, d_count, d_nuc, d_dens, d_ddens, d_out, d_dout, lookups, g,
                                      seed);
    };
    auto reset_hand = [&] {
        CK(cudaMemsetAsync(d_dxs_hand, 0, xs.size() * sizeof(float)));
        CK(cudaMemsetAsync(d_ddens_hand, 0, dens.size() * sizeof(float)));
    };
    auto hand = [&] {
        xs_grad_hand<<<blocks, XS_BLOCK>>>(d_egrid, d_xs, d_dxs_hand, d_count, d_nuc, d_dens, d_ddens_hand, d_seed,
                                           lookups, g, seed);
    };

    reset_grad();
    grad();
    reset_hand();
    hand();
    bench_sync("gradients");
    std::vector<float> gx = host_copy(d_dxs, xs.size()), gd = host_copy(d_ddens, dens.size());
    std::vector<float> ghx = host_copy(d_dxs_hand, xs.size()), ghd = host_copy(d_ddens_hand, dens.size());
    std::vector<float> dout_after = host_copy(d_dout, nout);
    // Both sum the same terms with atomics in an order of the hardware's choosing.
    bench_compare("xsbench", "zyg vs hand, d/dxs", gx, ghx, 1e-4);
    bench_compare("xsbench", "zyg vs hand, d/ddens", gd, ghd, 1e-4);
    bool consumed = std::all_of(dout_after.begin(), dout_after.end(), [](float v) { return v == 0.0f; });
    printf("check xsbench: seed consumed (dout zeroed) %s\n", consumed ? "PASS" : "FAIL");
    bench_failures += !consumed;
    auto loss = [&](const std::vector<float> &x, const std::vector<float> &d) {
        upload(d_xs, x), upload(d_dens, d);
        primal();
        bench_sync("primal");
        std::vector<float> out = host_copy(d_out, nout);
        double l = 0;
        for (size_t p = 0; p < nout; p++)
            l += (double)seedv[p] * out[p];
        return l;
    };
    // Directions in the table alone, in the densities alone (of the materials' nuclides),
    // and in both.
    for (int dir = 0; dir < 3; dir++) {
        double h = 1e-3;
        std::vector<float> xp = xs, xm = xs, dp = dens, dm = dens;
        double ad = 0, scale = 0;
        if (dir != 1)
            for (size_t p = 0; p < xs.size(); p++) {
                double v = 0.5 + rng.sym(); // biased: the loss changes in proportion to n, not sqrt(n)
                xp[p] = (float)(xs[p] + h * v), xm[p] = (float)(xs[p] - h * v);
                double veff = ((double)xp[p] - xm[p]) / (2 * h);
                ad += gx[p] * veff, scale += fabs(gx[p] * veff);
            }
        if (dir != 0)
            for (int mt = 0; mt < NMAT; mt++)
                for (int k = 0; k < counts[mt]; k++) {
                    size_t p = mt * MAXNUC + k;
                    double v = 0.5 + rng.sym(); // biased: the loss changes in proportion to n, not sqrt(n)
                    dp[p] = (float)(dens[p] + h * v), dm[p] = (float)(dens[p] - h * v);
                    double veff = ((double)dp[p] - dm[p]) / (2 * h);
                    ad += gd[p] * veff, scale += fabs(gd[p] * veff);
                }
        double fd = (loss(xp, dp) - loss(xm, dm)) / (2 * h);
        static const char *what[] = {"direction in the table vs central difference",
                                     "direction in the densities vs central difference",
                                     "direction in both vs central difference"};
        bench_check("xsbench", what[dir], ad, fd, 1e-3 * scale, 1e-3);
    }
    upload(d_xs, xs), upload(d_dens, dens);

    Timing tp = bench_time("primal", o, [] {}, primal);
    Timing tg = bench_time("zyg gradient", o, reset_grad, grad);
    Timing th = bench_time("hand gradient", o, reset_hand, hand);
    printf("bench xsbench n=%d nuclides=%d grid=%d materials=%d block=%d reps=%d/%d/%d primal_ms=%.4f grad_ms=%.4f "
           "ratio=%.2f hand_ms=%.4f hand_ratio=%.2f zyg_over_hand=%.2f primal_min_ms=%.4f grad_min_ms=%.4f "
           "malloc_heap_mib=%zu check=%s\n",
           lookups, nuc, g, NMAT, XS_BLOCK, tp.reps, tg.reps, th.reps, tp.median_ms, tg.median_ms, tg.median_ms / tp.median_ms,
           th.median_ms, th.median_ms / tp.median_ms, tg.median_ms / th.median_ms, tp.min_ms, tg.min_ms, heap >> 20,
           bench_failures ? "FAIL" : "PASS");
    return bench_finish("xsbench");
}
#endif
