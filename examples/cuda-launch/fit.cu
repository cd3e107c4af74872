// Single-source CUDA with zyg: a kernel asks for a gradient with `__enzyme_autodiff`, the
// host launches it with <<<grid, block>>>, and one clang-22 command (zyg's pass plugin in
// the device compilation) builds the program. See README.md beside this file.
//
// The model: a Gaussian bump on a baseline, m(x) = a exp(-(x - mu)^2 / (2 s^2)) + b, fitted
// to n noisy points by gradient descent on the squared error. Each GPU thread owns one
// point; `loss_grad` asks zyg for the gradient of that point's error with respect to the
// four parameters, and zyg's gradient adds it into `dtheta`, which every thread shares, with
// atomic additions. The program checks the gradient against the derivative worked out by
// hand (in double precision, on the host) and against central differences of the loss
// kernel on the GPU, then fits the model.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

extern "C" __device__ void __enzyme_autodiff(void *, ...);
extern "C" __device__ int enzyme_dup, enzyme_const;

enum { NPARAM = 4 };  // a, mu, s, b

__device__ float point_error(const float *theta, const float *x, const float *y, int i) {
    float a = theta[0], mu = theta[1], s = theta[2], b = theta[3];
    float t = (x[i] - mu) / s;
    float r = a * expf(-0.5f * t * t) + b - y[i];
    return r * r;
}

// The loss, summed over the points (one atomic addition per thread).
extern "C" __global__ void loss(const float *theta, const float *x, const float *y, float *sum, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        atomicAdd(sum, point_error(theta, x, y, i));
}

// d loss / d theta, added into dtheta (zero it first).
extern "C" __global__ void loss_grad(const float *theta, float *dtheta, const float *x, const float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        __enzyme_autodiff((void *)point_error, enzyme_dup, theta, dtheta, enzyme_const, x, enzyme_const, y,
                          enzyme_const, i);
}

// ZYG_DEVICE_ONLY leaves the host side out: test-suite/gpu/launch_example.c compiles the
// device side alone with -nocudalib, with which clang-22 forgets the CUDA version and then
// rejects <<<...>>> (it asks for `cudaConfigureCall`, CUDA's pre-9.2 launch API).
#ifndef ZYG_DEVICE_ONLY
// The host side. Every CUDA call is checked; no driver or no GPU means "skipped", exit 0.
static bool ok(cudaError_t e, const char *what) {
    if (e == cudaSuccess)
        return true;
    std::printf("FAIL %s: %s\n", what, cudaGetErrorString(e));
    return false;
}

struct Device {
    float *theta, *dtheta, *x, *y, *sum;
    int n;
    float loss_of(const float *params) {
        float zero = 0, out = 0;
        cudaMemcpy(theta, params, NPARAM * sizeof(float), cudaMemcpyHostToDevice);
        cudaMemcpy(sum, &zero, sizeof(float), cudaMemcpyHostToDevice);
        loss<<<(n + 255) / 256, 256>>>(theta, x, y, sum, n);
        cudaMemcpy(&out, sum, sizeof(float), cudaMemcpyDeviceToHost);
        return out;
    }
    void gradient_of(const float *params, float *grad) {
        cudaMemcpy(theta, params, NPARAM * sizeof(float), cudaMemcpyHostToDevice);
        cudaMemset(dtheta, 0, NPARAM * sizeof(float));
        loss_grad<<<(n + 255) / 256, 256>>>(theta, dtheta, x, y, n);
        cudaMemcpy(grad, dtheta, NPARAM * sizeof(float), cudaMemcpyDeviceToHost);
    }
};

// d loss / d theta worked out by hand, in double precision.
static void hand_gradient(const float *theta, const std::vector<float> &x, const std::vector<float> &y, double *g) {
    double a = theta[0], mu = theta[1], s = theta[2], b = theta[3];
    for (int k = 0; k < NPARAM; k++)
        g[k] = 0;
    for (size_t i = 0; i < x.size(); i++) {
        double t = (x[i] - mu) / s, e = std::exp(-0.5 * t * t);
        double r = a * e + b - y[i];
        g[0] += 2 * r * e;
        g[1] += 2 * r * a * e * t / s;
        g[2] += 2 * r * a * e * t * t / s;
        g[3] += 2 * r;
    }
}

int main() {
    const int n = 4096;
    const float truth[NPARAM] = {2.0f, 0.3f, 0.7f, 0.5f};
    std::vector<float> x(n), y(n);
    std::srand(7);
    for (int i = 0; i < n; i++) {
        x[i] = -3.0f + 6.0f * i / (n - 1);
        float t = (x[i] - truth[1]) / truth[2];
        float noise = 0.05f * (std::rand() / (float)RAND_MAX - 0.5f);
        y[i] = truth[0] * std::exp(-0.5f * t * t) + truth[3] + noise;
    }
    Device d{};
    d.n = n;
    cudaError_t e = cudaMalloc(&d.x, n * sizeof(float));
    if (e != cudaSuccess) {
        std::printf("skipped: no CUDA device (%s)\n", cudaGetErrorString(e));
        return 0;
    }
    if (!ok(cudaMalloc(&d.y, n * sizeof(float)), "cudaMalloc") ||
        !ok(cudaMalloc(&d.theta, NPARAM * sizeof(float)), "cudaMalloc") ||
        !ok(cudaMalloc(&d.dtheta, NPARAM * sizeof(float)), "cudaMalloc") ||
        !ok(cudaMalloc(&d.sum, sizeof(float)), "cudaMalloc"))
        return 1;
    cudaMemcpy(d.x, x.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d.y, y.data(), n * sizeof(float), cudaMemcpyHostToDevice);

    // 1. The gradient at three points against the hand-derived one and central differences.
    const float starts[3][NPARAM] = {{1.0f, 0.0f, 1.0f, 0.0f}, {2.5f, -0.4f, 0.5f, 0.8f}, {1.7f, 0.6f, 1.3f, 0.2f}};
    int failures = 0;
    for (const float *theta : starts) {
        float grad[NPARAM];
        double hand[NPARAM];
        d.gradient_of(theta, grad);
        if (!ok(cudaGetLastError(), "loss_grad launch") || !ok(cudaDeviceSynchronize(), "loss_grad"))
            return 1;
        hand_gradient(theta, x, y, hand);
        for (int k = 0; k < NPARAM; k++) {
            float p[NPARAM], m[NPARAM];
            const float h = 1e-2f;
            for (int j = 0; j < NPARAM; j++)
                p[j] = m[j] = theta[j];
            p[k] += h;
            m[k] -= h;
            double central = ((double)d.loss_of(p) - d.loss_of(m)) / (2 * h);
            double scale = std::fabs(hand[k]) + 1.0;
            bool good = std::fabs(grad[k] - hand[k]) <= 2e-3 * scale && std::fabs(grad[k] - central) <= 2e-2 * scale;
            std::printf("%s theta[%d]: zyg %.6g hand %.6g central %.6g\n", good ? "ok  " : "FAIL", k, grad[k], hand[k],
                        central);
            failures += !good;
        }
    }

    // 2. The fit: gradient descent from the first start.
    float theta[NPARAM] = {1.0f, 0.0f, 1.0f, 0.0f};
    float before = d.loss_of(theta);
    for (int step = 0; step < 500; step++) {
        float grad[NPARAM];
        d.gradient_of(theta, grad);
        for (int k = 0; k < NPARAM; k++)
            theta[k] -= 5e-5f * grad[k];
    }
    float after = d.loss_of(theta);
    if (!ok(cudaDeviceSynchronize(), "fit"))
        return 1;
    std::printf("fit: loss %.4g -> %.4g; a %.3f mu %.3f s %.3f b %.3f (truth 2 0.3 0.7 0.5)\n", before, after, theta[0],
                theta[1], std::fabs(theta[2]), theta[3]);
    for (int k = 0; k < NPARAM; k++) {
        float got = k == 2 ? std::fabs(theta[k]) : theta[k];
        if (std::fabs(got - truth[k]) > 0.05f) {
            std::printf("FAIL fit: parameter %d is %.4f, expected %.4f\n", k, got, truth[k]);
            failures++;
        }
    }
    std::printf(failures ? "FAILED (%d)\n" : "ALL OK\n", failures);
    return failures != 0;
}
#endif
