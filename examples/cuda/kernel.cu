// kernel.c's model as single-source CUDA (`make SOURCE=cu`): clang-22's CUDA mode compiles the
// device side (`--cuda-device-only`, CUDA's headers from NVIDIA's wheels arranged by
// test-suite/bin/cuda-root.sh, or a toolkit), `zyg grad --fn model` adds `model_grad`, and the
// PTX is launched by main.cpp through the driver API, as for kernel.c. `extern "C"` keeps
// the kernels' names unmangled.
extern "C" __global__ void model(float gain, const float *x, const float *c, int degree, float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float left = x[i > 0 ? i - 1 : i], right = x[i < n - 1 ? i + 1 : i];
    float u = 0.25f * left + 0.5f * x[i] + 0.25f * right;
    float acc = c[degree];
    for (int k = degree - 1; k >= 0; k--)
        acc = acc * u + c[k];
    y[i] = gain * tanhf(acc);
}
