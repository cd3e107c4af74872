// Host-side helpers shared by zyg's GPU benchmarks (bench/gpu/*.cu): start-up (or a clean
// skip without a driver or device), error checks, median timing with CUDA events, and the
// finite-difference check of a gradient. Device code of the benchmarks is in their own
// files; this header declares only the request functions zyg fills in.
//
// Every program prints, in this order:
//   gpu: NAME (sm_XY, N SMs, M GiB)                      or  skipped: REASON (exit 0)
//   check NAME: WHAT ... PASS|FAIL                       one line per check
//   bench NAME key=value ...                             one machine-readable line
// and exits 1 when a check failed or CUDA reported an error.
#ifndef ZYG_BENCH_CUH
#define ZYG_BENCH_CUH
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

extern "C" __device__ void __enzyme_autodiff(void *, ...);
extern "C" __device__ int enzyme_dup, enzyme_const;

#include <cuda_runtime.h>

#define CK(call)                                                                               \
    do {                                                                                       \
        cudaError_t err_ = (call);                                                             \
        if (err_ != cudaSuccess) {                                                             \
            fprintf(stderr, "FAIL: %s:%d: %s: %s\n", __FILE__, __LINE__, #call,                \
                    cudaGetErrorString(err_));                                                 \
            exit(1);                                                                           \
        }                                                                                      \
    } while (0)

struct BenchOptions {
    int reps = 51, warmup = 5;
    double budget_s = 20;  // at most about this long per timed kernel: fewer reps if slow
    bool quick = false;   // smaller sizes (a smoke run)
    long size = 0;        // the benchmark's main size, 0: its default
};

static BenchOptions bench_options(int argc, char **argv, const char *usage) {
    BenchOptions o;
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--reps") && a + 1 < argc)
            o.reps = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--warmup") && a + 1 < argc)
            o.warmup = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--size") && a + 1 < argc)
            o.size = atol(argv[++a]);
        else if (!strcmp(argv[a], "--budget") && a + 1 < argc)
            o.budget_s = atof(argv[++a]);
        else if (!strcmp(argv[a], "--quick"))
            o.quick = true;
        else {
            fprintf(stderr, "usage: %s [--reps N] [--warmup N] [--budget SECONDS] [--size N] [--quick]\n  %s\n", argv[0], usage);
            exit(2);
        }
    }
    if (o.reps < 1)
        o.reps = 1;
    return o;
}

// Starts the CUDA runtime on device 0 and prints its name; without a driver or a device,
// prints `skipped: REASON` and exits 0 (the benchmarks build and run anywhere).
static cudaDeviceProp bench_start(void) {
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess) {
        printf("skipped: %s\n", cudaGetErrorString(e));
        exit(0);
    }
    if (count == 0) {
        printf("skipped: no CUDA device\n");
        exit(0);
    }
    CK(cudaSetDevice(0));
    cudaDeviceProp p;
    CK(cudaGetDeviceProperties(&p, 0));
    int driver = 0, runtime = 0;
    cudaDriverGetVersion(&driver);
    cudaRuntimeGetVersion(&runtime);
    printf("gpu: %s (sm_%d%d, %d SMs, %.1f GiB; driver %d.%d, runtime %d.%d)\n", p.name, p.major, p.minor,
           p.multiProcessorCount, p.totalGlobalMem / 1073741824.0, driver / 1000, driver % 1000 / 10,
           runtime / 1000, runtime % 1000 / 10);
    return p;
}

// A launch went wrong (no kernel image for this GPU, a trap, an illegal address, device
// malloc out of memory shows as one): report it and stop.
static void bench_sync(const char *what) {
    cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess)
        e = cudaDeviceSynchronize();
    if (e != cudaSuccess) {
        fprintf(stderr, "FAIL: %s: %s\n", what, cudaGetErrorString(e));
        printf("FAIL: %s: %s\n", what, cudaGetErrorString(e));
        exit(1);
    }
}

// The median (and least) of `reps` timed runs of `launch`, after `warmup` untimed ones;
// `reset` runs before each, outside the timed events (restoring a seed the gradient
// consumes, zeroing what it accumulates into), so that every launch does the same work.
// A kernel whose first launch says the runs would take longer than the budget gets fewer
// (at least 5 timed, 1 warm-up), so that a slow gradient cannot stall the whole run.
struct Timing {
    double median_ms, min_ms;
    int reps;
};
template <class Reset, class Launch>
static Timing bench_time(const char *what, const BenchOptions &o, Reset reset, Launch launch) {
    cudaEvent_t start, stop;
    CK(cudaEventCreate(&start));
    CK(cudaEventCreate(&stop));
    int warmup = o.warmup, reps = o.reps;
    if (warmup > 0) {
        reset();
        CK(cudaEventRecord(start));
        launch();
        CK(cudaEventRecord(stop));
        CK(cudaEventSynchronize(stop));
        bench_sync(what);
        float first = 0;
        CK(cudaEventElapsedTime(&first, start, stop));
        double fit = o.budget_s * 1000.0 / std::max(first, 1e-3f);
        if (fit < warmup + reps) {
            warmup = 1;
            reps = std::max(5, (int)fit - 1);
            reps = std::min(reps, o.reps);
        }
        warmup--;
    }
    for (int r = 0; r < warmup; r++) {
        reset();
        launch();
    }
    bench_sync(what);
    std::vector<float> ms(reps);
    for (int r = 0; r < reps; r++) {
        reset();
        CK(cudaEventRecord(start));
        launch();
        CK(cudaEventRecord(stop));
        CK(cudaEventSynchronize(stop));
        bench_sync(what);
        CK(cudaEventElapsedTime(&ms[r], start, stop));
    }
    CK(cudaEventDestroy(start));
    CK(cudaEventDestroy(stop));
    std::sort(ms.begin(), ms.end());
    return Timing{ms[ms.size() / 2], ms[0], reps};
}

template <class T>
static T *dev_alloc(size_t n) {
    T *p = nullptr;
    CK(cudaMalloc(&p, n * sizeof(T)));
    return p;
}
template <class T>
static T *dev_copy(const std::vector<T> &h) {
    T *p = dev_alloc<T>(h.size());
    CK(cudaMemcpy(p, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
    return p;
}
template <class T>
static std::vector<T> host_copy(const T *d, size_t n) {
    std::vector<T> h(n);
    CK(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
    return h;
}
template <class T>
static void upload(T *d, const std::vector<T> &h) {
    CK(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
}

// A reproducible pseudo-random stream (SplitMix64), for inputs, seeds and directions.
struct Rng {
    uint64_t s;
    explicit Rng(uint64_t seed) : s(seed) {}
    uint64_t next() {
        uint64_t z = (s += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }
    double uniform() { return (next() >> 11) * (1.0 / 9007199254740992.0); } // [0, 1)
    double sym() { return 2.0 * uniform() - 1.0; }                           // [-1, 1)
};

static int bench_failures = 0;

// Compares a reverse-mode directional derivative g . v with a central difference of the
// loss along v, (L(x + h v) - L(x - h v)) / 2h, where v is the rounded step actually taken
// (float(x + h v) - float(x - h v)) / 2h, so that the rounding of the inputs does not count.
static void bench_check(const char *name, const char *what, double ad, double fd, double scale, double rtol) {
    double err = fabs(ad - fd), tol = rtol * std::max({fabs(ad), fabs(fd), scale});
    bool ok = err <= tol && std::isfinite(ad) && std::isfinite(fd);
    printf("check %s: %s: ad %.9g fd %.9g |diff| %.3g tol %.3g %s\n", name, what, ad, fd, err, tol, ok ? "PASS" : "FAIL");
    if (!ok)
        bench_failures++;
}

// Checks gradient g of `loss` at x along three random directions against central
// differences (bench_check). The directions are biased (0.5 plus a symmetric part): the
// loss then changes in proportion to x's length, not its square root, above float noise.
template <class Loss>
static void bench_directions(const char *name, const std::vector<float> &x, const std::vector<float> &g, Loss loss,
                             Rng &rng) {
    const size_t n = x.size();
    for (int dir = 0; dir < 3; dir++) {
        double h = 1e-3;
        std::vector<float> xp(n), xm(n);
        double ad = 0, scale = 0;
        for (size_t i = 0; i < n; i++) {
            double v = 0.5 + rng.sym();
            xp[i] = (float)(x[i] + h * v);
            xm[i] = (float)(x[i] - h * v);
            double veff = ((double)xp[i] - xm[i]) / (2 * h);
            ad += g[i] * veff;
            scale += fabs(g[i] * veff);
        }
        double fd = (loss(xp) - loss(xm)) / (2 * h);
        char what[64];
        snprintf(what, sizeof what, "direction %d vs central difference", dir);
        bench_check(name, what, ad, fd, 1e-3 * scale, 1e-3);
    }
}

// Compares two gradients elementwise (zyg's with the hand-written one): the largest
// difference relative to the largest magnitude.
static void bench_compare(const char *name, const char *what, const std::vector<float> &a, const std::vector<float> &b,
                          double rtol) {
    double diff = 0, mag = 0;
    size_t at = 0;
    bool finite = true;
    for (size_t k = 0; k < a.size(); k++) {
        if (!std::isfinite(a[k]) || !std::isfinite(b[k]))
            finite = false;
        double d = fabs((double)a[k] - b[k]);
        if (d > diff)
            diff = d, at = k;
        mag = std::max(mag, std::max(fabs((double)a[k]), fabs((double)b[k])));
    }
    bool ok = finite && diff <= rtol * mag && mag > 0;
    printf("check %s: %s: max |diff| %.3g at %zu, max |value| %.3g, rtol %.1g %s\n", name, what, diff, at, mag, rtol,
           ok ? "PASS" : "FAIL");
    if (!ok)
        bench_failures++;
}

static int bench_finish(const char *name) {
    if (bench_failures)
        printf("%s: %d check(s) FAILED\n", name, bench_failures);
    return bench_failures ? 1 : 0;
}
#endif
