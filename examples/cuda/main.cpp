// Runs zyg's gradient of a CUDA kernel through the CUDA driver API and checks it against
// central finite differences of the primal kernel, also run on the GPU.
//
// The PTX (kernel.c's `model` and zyg's `model_grad`) is compiled in: build/model_ptx.h,
// which the Makefile writes from build/model.grad.ptx. The driver is loaded at run time
// (cuda_driver.h); without one, or without a GPU, the program says it skipped and exits 0.
#include "cuda_driver.h"
#include "model_ptx.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <vector>

static CudaDriver drv;

static void check(CUresult result, const char *call, int line) {
    if (result == CUDA_SUCCESS)
        return;
    const char *name = "?", *text = "?";
    drv.cuGetErrorName(result, &name);
    drv.cuGetErrorString(result, &text);
    fprintf(stderr, "main.cpp:%d: %s: %s (%s)\n", line, call, name, text);
    exit(1);
}
#define CU(call) check((call), #call, __LINE__)

// Device memory for n values of T, freed when it goes out of scope.
template <typename T> struct DeviceBuffer {
    CUdeviceptr ptr = 0;
    size_t n;
    explicit DeviceBuffer(size_t n) : n(n) {
        CU(drv.cuMemAlloc(&ptr, n * sizeof(T)));
        CU(drv.cuMemsetD8(ptr, 0, n * sizeof(T)));
    }
    explicit DeviceBuffer(const std::vector<T> &host) : DeviceBuffer(host.size()) { upload(host); }
    DeviceBuffer(const DeviceBuffer &) = delete;
    DeviceBuffer &operator=(const DeviceBuffer &) = delete;
    ~DeviceBuffer() { drv.cuMemFree(ptr); }
    void upload(const std::vector<T> &host) { CU(drv.cuMemcpyHtoD(ptr, host.data(), n * sizeof(T))); }
    std::vector<T> download() const {
        std::vector<T> host(n);
        CU(drv.cuMemcpyDtoH(host.data(), ptr, n * sizeof(T))); // waits for the kernels before it
        return host;
    }
};

static const unsigned BLOCK = 256;

// Launches `kernel` with one thread per element; `args` point to the kernel's arguments,
// in its parameter order (a CUdeviceptr for each pointer).
static void launch(CUfunction kernel, int n, std::initializer_list<void *> args) {
    std::vector<void *> params(args);
    unsigned grid = (n + BLOCK - 1) / BLOCK;
    CU(drv.cuLaunchKernel(kernel, grid, 1, 1, BLOCK, 1, 1, 0, nullptr, params.data(), nullptr));
}

static int failures = 0;

static void compare(const char *label, int index, double got, double want) {
    // Float kernels against float differences: |got - want| <= 2e-3 (1 + |want|).
    bool ok = std::fabs(got - want) <= 2e-3 * (1 + std::fabs(want)) && got == got;
    failures += !ok;
    printf("%s %s", ok ? "ok  " : "FAIL", label);
    if (index >= 0)
        printf("[%d]", index);
    printf("  zyg=%.7g  finite differences=%.7g\n", got, want);
}

int main() {
    char error[512];
    if (!drv.load(error, sizeof error)) {
        printf("no CUDA driver: skipped (%s)\n", error);
        return 0;
    }
    CUresult init = drv.cuInit(0);
    int count = 0;
    if (init == CUDA_SUCCESS)
        CU(drv.cuDeviceGetCount(&count));
    if (init == CUDA_ERROR_NO_DEVICE || init == CUDA_ERROR_STUB_LIBRARY || (init == CUDA_SUCCESS && count == 0)) {
        printf("no CUDA device: skipped\n");
        return 0;
    }
    CU(init);

    CUdevice device;
    CU(drv.cuDeviceGet(&device, 0));
    char name[256];
    int major, minor, version;
    CU(drv.cuDeviceGetName(name, sizeof name, device));
    CU(drv.cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device));
    CU(drv.cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device));
    CU(drv.cuDriverGetVersion(&version));
    printf("device 0: %s (sm_%d%d), CUDA driver %d.%d\n", name, major, minor, version / 1000, version % 1000 / 10);

    // The device's primary context (what the CUDA runtime uses too).
    CUcontext context;
    CU(drv.cuDevicePrimaryCtxRetain(&context, device));
    CU(drv.cuCtxSetCurrent(context));

    // The driver compiles the PTX for this GPU; its messages say why when it cannot.
    char log[8192] = "";
    CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *values[] = {log, reinterpret_cast<void *>(sizeof log)};
    CUmodule module;
    CUresult loaded = drv.cuModuleLoadDataEx(&module, model_ptx, 2, options, values);
    if (loaded != CUDA_SUCCESS)
        fprintf(stderr, "loading the PTX:\n%s\n", log);
    CU(loaded);
    CUfunction model, model_grad;
    CU(drv.cuModuleGetFunction(&model, module, "model"));
    CU(drv.cuModuleGetFunction(&model_grad, module, "model_grad"));

    {
        int n = 10000, degree = 4;
        float gain = 1.3f;
        std::vector<float> x(n), w(n), c = {0.1f, 0.8f, -0.3f, 0.2f, -0.1f};
        for (int i = 0; i < n; i++) {
            x[i] = 0.8f * std::sin(0.37f * i);
            w[i] = 1.0f + 0.5f * std::cos(0.11f * i); // loss = sum_i w_i y_i
        }

        // The gradient kernel: model_grad(gain, x, dx, c, dc, degree, y, dy, n, dgain). Each
        // `dup` pointer is followed by its shadow, which accumulates (+=) the gradient; the
        // shadow of the output y holds the seed d loss / d y = w (and is consumed); the
        // gradient for the `out` scalar gain is added into *dgain.
        DeviceBuffer<float> d_x(x), d_dx(n), d_c(c), d_dc(c.size()), d_y(n), d_dy(w), d_dgain(1);
        launch(model_grad, n, {&gain, &d_x.ptr, &d_dx.ptr, &d_c.ptr, &d_dc.ptr, &degree, &d_y.ptr,
                               &d_dy.ptr, &n, &d_dgain.ptr});
        std::vector<float> dx = d_dx.download(), dc = d_dc.download(), dgain = d_dgain.download();

        // The loss through the primal kernel, summed in double on the host.
        DeviceBuffer<float> p_x(n), p_c(c.size()), p_y(n);
        auto loss = [&](float g, const std::vector<float> &xs, const std::vector<float> &cs) {
            p_x.upload(xs);
            p_c.upload(cs);
            launch(model, n, {&g, &p_x.ptr, &p_c.ptr, &degree, &p_y.ptr, &n});
            std::vector<float> y = p_y.download();
            double sum = 0;
            for (int i = 0; i < n; i++)
                sum += (double)w[i] * y[i];
            return sum;
        };
        // Central differences at the float points v -+ h, divided by their actual distance.
        auto step = [](float v, float &lo, float &hi) {
            double h = 1e-2 * std::max(1.0, (double)std::fabs(v));
            lo = (float)(v - h), hi = (float)(v + h);
            return (double)hi - (double)lo;
        };

        float lo, hi;
        double width = step(gain, lo, hi);
        compare("d loss / d gain", -1, dgain[0], (loss(hi, x, c) - loss(lo, x, c)) / width);
        for (int k = 0; k <= degree; k++) {
            std::vector<float> up = c, down = c;
            width = step(c[k], down[k], up[k]);
            compare("d loss / d c", k, dc[k], (loss(gain, x, up) - loss(gain, x, down)) / width);
        }
        for (int i : {0, 1, 2, 777, n / 2, 8191, n - 2, n - 1}) {
            std::vector<float> up = x, down = x;
            width = step(x[i], down[i], up[i]);
            compare("d loss / d x", i, dx[i], (loss(gain, up, c) - loss(gain, down, c)) / width);
        }
    }

    CU(drv.cuModuleUnload(module));
    CU(drv.cuDevicePrimaryCtxRelease(device));
    if (failures) {
        printf("FAILED: %d checks\n", failures);
        return 1;
    }
    printf("ALL OK\n");
    return 0;
}
