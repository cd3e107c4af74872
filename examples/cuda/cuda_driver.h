// The CUDA driver API, loaded at run time: dlopen("libcuda.so.1") and dlsym for each entry
// point, so that this program builds anywhere (only cuda.h is needed, for the types) and
// says "no CUDA driver" instead of failing to start where there is none.
//
// cuda.h maps most names to versioned symbols (`#define cuMemAlloc cuMemAlloc_v2`); the
// macros below expand a name before using it, so each pointer gets the versioned symbol and
// its declared type, and the code calls it by its usual name (`drv.cuMemAlloc(...)`).
#pragma once
#include <cuda.h>
#include <dlfcn.h>
#include <cstdio>

#define CUDA_DRIVER_FUNCTIONS(X)                                                           \
    X(cuInit) X(cuGetErrorName) X(cuGetErrorString) X(cuDriverGetVersion)                    \
    X(cuDeviceGetCount) X(cuDeviceGet) X(cuDeviceGetName) X(cuDeviceGetAttribute)            \
    X(cuDevicePrimaryCtxRetain) X(cuDevicePrimaryCtxRelease) X(cuCtxSetCurrent)              \
    X(cuCtxSynchronize) X(cuModuleLoadDataEx) X(cuModuleGetFunction) X(cuModuleUnload)       \
    X(cuMemAlloc) X(cuMemFree) X(cuMemcpyHtoD) X(cuMemcpyDtoH) X(cuMemsetD8) X(cuLaunchKernel)

#define CUDA_DRIVER_STR2(x) #x
#define CUDA_DRIVER_STR(x) CUDA_DRIVER_STR2(x)

struct CudaDriver {
#define CUDA_DRIVER_MEMBER(name) decltype(&::name) name = nullptr;
    CUDA_DRIVER_FUNCTIONS(CUDA_DRIVER_MEMBER)
#undef CUDA_DRIVER_MEMBER
    void *handle = nullptr;

    // Loads libcuda.so.1, the name the driver installs (libcuda.so is only a development
    // link). Returns false, with a message in `error`, where there is no driver or an entry
    // point is missing.
    bool load(char *error, size_t size) {
        handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
        if (!handle) {
            snprintf(error, size, "%s", dlerror());
            return false;
        }
#define CUDA_DRIVER_LOAD(name)                                                                   \
    name = reinterpret_cast<decltype(name)>(dlsym(handle, CUDA_DRIVER_STR(name)));                \
    if (!name) {                                                                                 \
        snprintf(error, size, "libcuda has no %s", CUDA_DRIVER_STR(name));                       \
        return false;                                                                            \
    }
        CUDA_DRIVER_FUNCTIONS(CUDA_DRIVER_LOAD)
#undef CUDA_DRIVER_LOAD
        return true;
    }
};
