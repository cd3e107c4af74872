// A block reduction: each block of 256 threads sums f(x_i) = x_i^2 / 2 + sin(x_i) over its
// elements by a tree in shared memory (a barrier per level), and thread 0 writes the
// block's sum: out[b] = sum over the block of f(x_i), the first stage of a sum over 2^24
// elements.
//
// zyg's gradient kernel asks, in every thread, for the gradient of the kernel's per-thread
// body (`reduce_body`: the whole kernel, shared memory and barriers included) with
// `__enzyme_autodiff`: dx_i += dout[b] f'(x_i). The shared array gets a shared shadow and
// the tree's barriers are replayed backwards. The hand-written gradient is what a person
// writes: an elementwise kernel dx_i += dout[b] (x_i + cos x_i), no shared memory.
#include "bench.cuh"

#define REDUCE_BLOCK 256

__device__ float reduce_f(float x) { return 0.5f * x * x + sinf(x); }

__device__ void reduce_body(const float *__restrict__ x, float *__restrict__ out, int n) {
    __shared__ float buf[REDUCE_BLOCK];
    int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    buf[t] = i < n ? reduce_f(x[i]) : 0.0f;
    __syncthreads();
    for (int s = REDUCE_BLOCK / 2; s > 0; s >>= 1) {
        if (t < s)
            buf[t] += buf[t + s];
        __syncthreads();
    }
    if (t == 0)
        out[blockIdx.x] = buf[0];
}

extern "C" __global__ void reduce_primal(const float *x, float *out, int n) { reduce_body(x, out, n); }

// dx += d(out . dout)/dx; dout is consumed (zeroed), as zyg's gradients consume the
// shadows of what they write.
extern "C" __global__ void reduce_grad(const float *x, float *dx, float *out, float *dout, int n) {
    __enzyme_autodiff((void *)reduce_body, enzyme_dup, x, dx, enzyme_dup, out, dout, enzyme_const, n);
}

extern "C" __global__ void reduce_grad_hand(const float *__restrict__ x, float *__restrict__ dx,
                                            const float *__restrict__ dout, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        dx[i] += dout[blockIdx.x] * (x[i] + cosf(x[i]));
}

#ifndef ZYG_BENCH_NO_MAIN
int main(int argc, char **argv) {
    BenchOptions o = bench_options(argc, argv, "--size: elements (default 2^24, --quick 2^20)");
    bench_start();
    int n = (int)(o.size ? o.size : o.quick ? 1 << 20 : 1 << 24);
    int blocks = (n + REDUCE_BLOCK - 1) / REDUCE_BLOCK;
    Rng rng(1);
    std::vector<float> x(n), seed(blocks);
    for (auto &v : x)
        v = (float)(2.0 * rng.sym());
    for (auto &v : seed)
        v = (float)(0.5 + rng.uniform());
    float *d_x = dev_copy(x), *d_out = dev_alloc<float>(blocks), *d_seed = dev_copy(seed);
    float *d_dout = dev_alloc<float>(blocks), *d_dx = dev_alloc<float>(n), *d_dx_hand = dev_alloc<float>(n);
    auto primal = [&] { reduce_primal<<<blocks, REDUCE_BLOCK>>>(d_x, d_out, n); };
    auto reset_grad = [&] {
        CK(cudaMemcpyAsync(d_dout, d_seed, blocks * sizeof(float), cudaMemcpyDeviceToDevice));
        CK(cudaMemsetAsync(d_dx, 0, n * sizeof(float)));
    };
    auto grad = [&] { reduce_grad<<<blocks, REDUCE_BLOCK>>>(d_x, d_dx, d_out, d_dout, n); };
    auto reset_hand = [&] { CK(cudaMemsetAsync(d_dx_hand, 0, n * sizeof(float))); };
    auto hand = [&] { reduce_grad_hand<<<blocks, REDUCE_BLOCK>>>(d_x, d_dx_hand, d_seed, n); };

    // Correctness: zyg's gradient against finite differences of the primal kernel (loss
    // L = seed . out, accumulated in double), along three random directions, and against
    // the hand-written gradient elementwise.
    reset_grad();
    grad();
    reset_hand();
    hand();
    bench_sync("gradients");
    std::vector<float> g = host_copy(d_dx, n), gh = host_copy(d_dx_hand, n);
    std::vector<float> dout_after = host_copy(d_dout, blocks);
    bench_compare("reduce", "zyg vs hand", g, gh, 1e-5);
    bool consumed = std::all_of(dout_after.begin(), dout_after.end(), [](float v) { return v == 0.0f; });
    printf("check reduce: seed consumed (dout zeroed) %s\n", consumed ? "PASS" : "FAIL");
    bench_failures += !consumed;
    auto loss = [&](const std::vector<float> &xs) {
        upload(d_x, xs);
        primal();
        bench_sync("primal");
        std::vector<float> out = host_copy(d_out, blocks);
        double l = 0;
        for (int b = 0; b < blocks; b++)
            l += (double)seed[b] * out[b];
        return l;
    };
    bench_directions("reduce", x, g, loss, rng);
    upload(d_x, x);

    Timing tp = bench_time("primal", o, [] {}, primal);
    Timing tg = bench_time("zyg gradient", o, reset_grad, grad);
    Timing th = bench_time("hand gradient", o, reset_hand, hand);
    printf("bench reduce n=%d block=%d reps=%d/%d/%d primal_ms=%.4f grad_ms=%.4f ratio=%.2f hand_ms=%.4f hand_ratio=%.2f "
           "zyg_over_hand=%.2f primal_min_ms=%.4f grad_min_ms=%.4f check=%s\n",
           n, REDUCE_BLOCK, tp.reps, tg.reps, th.reps, tp.median_ms, tg.median_ms, tg.median_ms / tp.median_ms, th.median_ms,
           th.median_ms / tp.median_ms, tg.median_ms / th.median_ms, tp.min_ms, tg.min_ms,
           bench_failures ? "FAIL" : "PASS");
    return bench_finish("reduce");
}
#endif
