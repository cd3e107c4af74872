// A particle interaction (n-body) kernel: the softened gravitational potential energy of
// each of n bodies (16384),
//   e_i = m_i sum_j m_j / sqrt(|p_j - p_i|^2 + eps^2),
// one thread per body looping over all bodies (positions as three float arrays). The
// gradient of seed . e with respect to the positions is the forces (weighted by the seed):
// the classic use of reverse mode on particle codes, forces from an energy.
//
// zyg's gradient kernel asks, in every thread, for the gradient of the per-thread body
// (`nbody_body`) with `__enzyme_autodiff`. Its adjoint runs the j loop backwards, adding
// into the shadows of body j's position (atomics: every thread touches every body) and
// keeping body i's in registers. The loop's values the adjoint needs are on the thread's
// tape: a stack whose first 512 bytes are in the tape and the rest in chunks from device
// `malloc` (zyg reloads nothing from memory in GPU code), about 20 bytes per iteration,
// n * n * 20 bytes in all (5 GiB at n = 16384): the program raises the device malloc heap
// accordingly before any launch (ZYG_BENCH_MALLOC_HEAP_MB overrides it). The hand-written
// gradient uses the symmetry of the pair potential: one loop per body, no atomics, no tape.
#include "bench.cuh"

#define NBODY_BLOCK 64

__device__ void nbody_body(const float *__restrict__ px, const float *__restrict__ py, const float *__restrict__ pz,
                           const float *__restrict__ m, float *__restrict__ e, int n, float eps2) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float xi = px[i], yi = py[i], zi = pz[i], s = 0.0f;
    for (int j = 0; j < n; j++) {
        float dx = px[j] - xi, dy = py[j] - yi, dz = pz[j] - zi;
        s += m[j] / sqrtf(dx * dx + dy * dy + dz * dz + eps2);
    }
    e[i] = m[i] * s;
}

extern "C" __global__ void nbody_primal(const float *px, const float *py, const float *pz, const float *m, float *e,
                                        int n, float eps2) {
    nbody_body(px, py, pz, m, e, n, eps2);
}

// dp += d(e . de)/dp; de is consumed (zeroed).
extern "C" __global__ void nbody_grad(const float *px, float *dpx, const float *py, float *dpy, const float *pz,
                                      float *dpz, const float *m, float *e, float *de, int n, float eps2) {
    __enzyme_autodiff((void *)nbody_body, enzyme_dup, px, dpx, enzyme_dup, py, dpy, enzyme_dup, pz, dpz, enzyme_const,
                      m, enzyme_dup, e, de, enzyme_const, n, enzyme_const, eps2);
}

// d/dp_i of sum_k s_k e_k = sum_j (s_i + s_j) m_i m_j * -(|p_i - p_j|^2 + eps^2)^(-3/2) (p_i - p_j).
extern "C" __global__ void nbody_grad_hand(const float *__restrict__ px, float *__restrict__ dpx,
                                           const float *__restrict__ py, float *__restrict__ dpy,
                                           const float *__restrict__ pz, float *__restrict__ dpz,
                                           const float *__restrict__ m, const float *__restrict__ de, int n,
                                           float eps2) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float xi = px[i], yi = py[i], zi = pz[i], si = de[i], gx = 0.0f, gy = 0.0f, gz = 0.0f;
    for (int j = 0; j < n; j++) {
        float dx = xi - px[j], dy = yi - py[j], dz = zi - pz[j];
        float r = 1.0f / sqrtf(dx * dx + dy * dy + dz * dz + eps2);
        float c = (si + de[j]) * m[j] * r * r * r;
        gx -= c * dx;
        gy -= c * dy;
        gz -= c * dz;
    }
    float mi = m[i];
    dpx[i] += mi * gx;
    dpy[i] += mi * gy;
    dpz[i] += mi * gz;
}

#ifndef ZYG_BENCH_NO_MAIN
int main(int argc, char **argv) {
    BenchOptions o = bench_options(argc, argv, "--size: bodies (default 16384, --quick 4096)");
    bench_start();
    int n = (int)(o.size ? o.size : o.quick ? 4096 : 16384);
    const float eps2 = 0.01f;
    // zyg's tape: ~20 bytes per iteration of the j loop per thread, in chunks doubling from
    // 1 KiB to 64 KiB; room for 32 bytes per iteration and 256 KiB more per thread.
    size_t heap = (size_t)n * n * 32 + (size_t)n * (256 << 10);
    if (const char *s = getenv("ZYG_BENCH_MALLOC_HEAP_MB"))
        heap = (size_t)atol(s) << 20;
    CK(cudaDeviceSetLimit(cudaLimitMallocHeapSize, heap));
    int blocks = (n + NBODY_BLOCK - 1) / NBODY_BLOCK;
    Rng rng(3);
    std::vector<float> x(n), y(n), z(n), m(n), seed(n);
    for (int i = 0; i < n; i++) {
        x[i] = (float)rng.sym(), y[i] = (float)rng.sym(), z[i] = (float)rng.sym();
        m[i] = (float)((0.5 + rng.uniform()) / n);
        seed[i] = (float)(0.5 + rng.uniform());
    }
    float *d_x = dev_copy(x), *d_y = dev_copy(y), *d_z = dev_copy(z), *d_m = dev_copy(m), *d_seed = dev_copy(seed);
    float *d_e = dev_alloc<float>(n), *d_de = dev_alloc<float>(n);
    float *d_g = dev_alloc<float>(3 * (size_t)n), *d_gh = dev_alloc<float>(3 * (size_t)n);
    auto primal = [&] { nbody_primal<<<blocks, NBODY_BLOCK>>>(d_x, d_y, d_z, d_m, d_e, n, eps2); };
    auto reset_grad = [&] {
        CK(cudaMemcpyAsync(d_de, d_seed, n * sizeof(float), cudaMemcpyDeviceToDevice));
        CK(cudaMemsetAsync(d_g, 0, 3 * n * sizeof(float)));
    };
    auto grad = [&] {
        nbody_grad<<<blocks, NBODY_BLOCK>>>(d_x, d_g, d_y, d_g + n, d_z, d_g + 2 * n, d_m, d_e, d_de, n, eps2);
    };
    auto reset_hand = [&] { CK(cudaMemsetAsync(d_gh, 0, 3 * n * sizeof(float))); };
    auto hand = [&] {
        nbody_grad_hand<<<blocks, NBODY_BLOCK>>>(d_x, d_gh, d_y, d_gh + n, d_z, d_gh + 2 * n, d_m, d_seed, n, eps2);
    };

    reset_grad();
    grad();
    reset_hand();
    hand();
    bench_sync("gradients");
    std::vector<float> g = host_copy(d_g, 3 * (size_t)n), gh = host_copy(d_gh, 3 * (size_t)n);
    std::vector<float> de_after = host_copy(d_de, n);
    bench_compare("nbody", "zyg vs hand", g, gh, 1e-4);
    bool consumed = std::all_of(de_after.begin(), de_after.end(), [](float v) { return v == 0.0f; });
    printf("check nbody: seed consumed (de zeroed) %s\n", consumed ? "PASS" : "FAIL");
    bench_failures += !consumed;
    auto loss = [&](const std::vector<float> &xs, const std::vector<float> &ys, const std::vector<float> &zs) {
        upload(d_x, xs), upload(d_y, ys), upload(d_z, zs);
        primal();
        bench_sync("primal");
        std::vector<float> e = host_copy(d_e, n);
        double l = 0;
        for (int i = 0; i < n; i++)
            l += (double)seed[i] * e[i];
        return l;
    };
    for (int dir = 0; dir < 3; dir++) {
        double h = 1e-3;
        std::vector<float> xp(n), xm(n), yp(n), ym(n), zp(n), zm(n);
        double ad = 0, scale = 0;
        auto step = [&](const std::vector<float> &c, std::vector<float> &cp, std::vector<float> &cm, const float *gc) {
            for (int i = 0; i < n; i++) {
                double v = rng.sym();
                cp[i] = (float)(c[i] + h * v);
                cm[i] = (float)(c[i] - h * v);
                double veff = ((double)cp[i] - cm[i]) / (2 * h);
                ad += gc[i] * veff;
                scale += fabs(gc[i] * veff);
            }
        };
        step(x, xp, xm, g.data());
        step(y, yp, ym, g.data() + n);
        step(z, zp, zm, g.data() + 2 * n);
        double fd = (loss(xp, yp, zp) - loss(xm, ym, zm)) / (2 * h);
        char what[64];
        snprintf(what, sizeof what, "direction %d vs central difference", dir);
        bench_check("nbody", what, ad, fd, 1e-2 * scale, 1e-2);
    }
    upload(d_x, x), upload(d_y, y), upload(d_z, z);

    Timing tp = bench_time("primal", o, [] {}, primal);
    Timing tg = bench_time("zyg gradient", o, reset_grad, grad);
    Timing th = bench_time("hand gradient", o, reset_hand, hand);
    printf("bench nbody n=%d block=%d reps=%d/%d/%d primal_ms=%.4f grad_ms=%.4f ratio=%.2f hand_ms=%.4f hand_ratio=%.2f "
           "zyg_over_hand=%.2f primal_min_ms=%.4f grad_min_ms=%.4f malloc_heap_mib=%zu check=%s\n",
           n, NBODY_BLOCK, tp.reps, tg.reps, th.reps, tp.median_ms, tg.median_ms, tg.median_ms / tp.median_ms, th.median_ms,
           th.median_ms / tp.median_ms, tg.median_ms / th.median_ms, tp.min_ms, tg.min_ms, heap >> 20,
           bench_failures ? "FAIL" : "PASS");
    return bench_finish("nbody");
}
#endif
