// A 2D stencil: one explicit step of a nonlinear reaction-diffusion equation on a w x h
// grid (4096 x 4096 floats), five points per output:
//   out[r][c] = u + k (u[r-1][c] + u[r+1][c] + u[r][c-1] + u[r][c+1] - 4u) - a u^3
// on the interior, one thread per point on a 2D grid of 32 x 8 blocks.
//
// zyg's gradient kernel asks, in every thread, for the gradient of the per-thread body
// (`stencil_body`) with `__enzyme_autodiff`: each thread scatters its output's adjoint to
// its five inputs, so the shadow updates of u are atomic (the points are shared with the
// neighbours' threads). The hand-written gradient gathers instead: each thread sums the
// adjoints of the (up to) five outputs its point feeds, with no atomics.
#include "bench.cuh"

#define STENCIL_BX 32
#define STENCIL_BY 8

__device__ void stencil_body(const float *__restrict__ u, float *__restrict__ out, int w, int h, float k, float a) {
    int col = blockIdx.x * blockDim.x + threadIdx.x, row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= 1 && row < h - 1 && col >= 1 && col < w - 1) {
        int p = row * w + col;
        float v = u[p];
        out[p] = v + k * (u[p - w] + u[p + w] + u[p - 1] + u[p + 1] - 4.0f * v) - a * v * v * v;
    }
}

extern "C" __global__ void stencil_primal(const float *u, float *out, int w, int h, float k, float a) {
    stencil_body(u, out, w, h, k, a);
}

// du += d(out . dout)/du over the interior; dout is consumed (zeroed) there.
extern "C" __global__ void stencil_grad(const float *u, float *du, float *out, float *dout, int w, int h, float k,
                                        float a) {
    __enzyme_autodiff((void *)stencil_body, enzyme_dup, u, du, enzyme_dup, out, dout, enzyme_const, w, enzyme_const, h,
                      enzyme_const, k, enzyme_const, a);
}

__host__ __device__ bool stencil_interior(int row, int col, int w, int h) {
    return row >= 1 && row < h - 1 && col >= 1 && col < w - 1;
}

extern "C" __global__ void stencil_grad_hand(const float *__restrict__ u, float *__restrict__ du,
                                             const float *__restrict__ dout, int w, int h, float k, float a) {
    int col = blockIdx.x * blockDim.x + threadIdx.x, row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= h || col >= w)
        return;
    int p = row * w + col;
    float g = 0.0f;
    if (stencil_interior(row, col, w, h)) {
        float v = u[p];
        g += dout[p] * (1.0f - 4.0f * k - 3.0f * a * v * v);
    }
    if (stencil_interior(row - 1, col, w, h))
        g += k * dout[p - w];
    if (stencil_interior(row + 1, col, w, h))
        g += k * dout[p + w];
    if (stencil_interior(row, col - 1, w, h))
        g += k * dout[p - 1];
    if (stencil_interior(row, col + 1, w, h))
        g += k * dout[p + 1];
    du[p] += g;
}

#ifndef ZYG_BENCH_NO_MAIN
int main(int argc, char **argv) {
    BenchOptions o = bench_options(argc, argv, "--size: side of the square grid (default 4096, --quick 1024)");
    bench_start();
    int w = (int)(o.size ? o.size : o.quick ? 1024 : 4096), h = w;
    size_t n = (size_t)w * h;
    const float k = 0.2f, a = 0.1f;
    dim3 block(STENCIL_BX, STENCIL_BY), grid((w + STENCIL_BX - 1) / STENCIL_BX, (h + STENCIL_BY - 1) / STENCIL_BY);
    Rng rng(2);
    std::vector<float> u(n), seed(n);
    for (size_t p = 0; p < n; p++) {
        int r = (int)(p / w), c = (int)(p % w);
        u[p] = (float)(sin(0.01 * r) * cos(0.013 * c) + 0.3 * rng.sym());
        seed[p] = stencil_interior(r, c, w, h) ? (float)(0.5 + rng.uniform()) : 0.0f;
    }
    float *d_u = dev_copy(u), *d_out = dev_copy(std::vector<float>(n, 0.0f)), *d_seed = dev_copy(seed);
    float *d_dout = dev_alloc<float>(n), *d_du = dev_alloc<float>(n), *d_du_hand = dev_alloc<float>(n);
    auto primal = [&] { stencil_primal<<<grid, block>>>(d_u, d_out, w, h, k, a); };
    auto reset_grad = [&] {
        CK(cudaMemcpyAsync(d_dout, d_seed, n * sizeof(float), cudaMemcpyDeviceToDevice));
        CK(cudaMemsetAsync(d_du, 0, n * sizeof(float)));
    };
    auto grad = [&] { stencil_grad<<<grid, block>>>(d_u, d_du, d_out, d_dout, w, h, k, a); };
    auto reset_hand = [&] { CK(cudaMemsetAsync(d_du_hand, 0, n * sizeof(float))); };
    auto hand = [&] { stencil_grad_hand<<<grid, block>>>(d_u, d_du_hand, d_seed, w, h, k, a); };

    reset_grad();
    grad();
    reset_hand();
    hand();
    bench_sync("gradients");
    std::vector<float> g = host_copy(d_du, n), gh = host_copy(d_du_hand, n), dout_after = host_copy(d_dout, n);
    bench_compare("stencil2d", "zyg vs hand", g, gh, 1e-5);
    bool consumed = std::all_of(dout_after.begin(), dout_after.end(), [](float v) { return v == 0.0f; });
    printf("check stencil2d: seed consumed (dout zeroed) %s\n", consumed ? "PASS" : "FAIL");
    bench_failures += !consumed;
    auto loss = [&](const std::vector<float> &us) {
        upload(d_u, us);
        primal();
        bench_sync("primal");
        std::vector<float> out = host_copy(d_out, n);
        double l = 0;
        for (size_t p = 0; p < n; p++)
            l += (double)seed[p] * out[p];
        return l;
    };
    bench_directions("stencil2d", u, g, loss, rng);
    upload(d_u, u);

    Timing tp = bench_time("primal", o, [] {}, primal);
    Timing tg = bench_time("zyg gradient", o, reset_grad, grad);
    Timing th = bench_time("hand gradient", o, reset_hand, hand);
    printf("bench stencil2d n=%dx%d block=%dx%d reps=%d/%d/%d primal_ms=%.4f grad_ms=%.4f ratio=%.2f hand_ms=%.4f "
           "hand_ratio=%.2f zyg_over_hand=%.2f primal_min_ms=%.4f grad_min_ms=%.4f check=%s\n",
           w, h, STENCIL_BX, STENCIL_BY, tp.reps, tg.reps, th.reps, tp.median_ms, tg.median_ms, tg.median_ms / tp.median_ms,
           th.median_ms, th.median_ms / tp.median_ms, tg.median_ms / th.median_ms, tp.min_ms, tg.min_ms,
           bench_failures ? "FAIL" : "PASS");
    return bench_finish("stencil2d");
}
#endif
