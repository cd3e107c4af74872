// CUDA kernels in C with NVVM builtins, for zyg-runtime's tests: build.sh compiles them with
// clang-22 for nvptx64, differentiates each with `zyg grad --fn`, and lowers the module
// (primal and gradient kernels) to PTX with `zyg compile --target nvptx64 --gpu sm_70`.
//   saxpy_sin: elementwise (each thread owns x[i], y[i]), an `out` scalar `a`
//   stencil:   neighbours share x (its shadow gets atomic adds)
//   horner:    a per-thread loop over coefficients every thread reads (a tape, atomics)
//   blocksum:  a tree reduction in shared memory with a barrier per step (a shared shadow
//              the gradient kernel zeroes, atomic adds into it, the barriers replayed)
//   dynsum:    the same reduction in dynamic shared memory (`extern __shared__`), whose
//              shadow is the second half of a launch with twice the bytes
float sinf(float);
float expf(float);
float tanhf(float);

#define TID() (__nvvm_read_ptx_sreg_ctaid_x() * __nvvm_read_ptx_sreg_ntid_x() + __nvvm_read_ptx_sreg_tid_x())

__attribute__((nvptx_kernel)) void saxpy_sin(float a, const float *x, float *y, int n) {
    int i = TID();
    if (i < n)
        y[i] = a * sinf(x[i]) + y[i] * expf(0.5f * x[i]);
}

__attribute__((nvptx_kernel)) void stencil(const float *x, float *y, int n) {
    int i = TID();
    if (i > 0 && i < n - 1)
        y[i] = tanhf(0.25f * x[i - 1] + 0.5f * x[i] * x[i] + 0.25f * x[i + 1]);
}

__attribute__((nvptx_kernel)) void horner(const float *c, int degree, const float *t, float *p, int n) {
    int i = TID();
    if (i >= n)
        return;
    float acc = c[degree];
    for (int k = degree - 1; k >= 0; k--)
        acc = acc * t[i] + c[k];
    p[i] = acc;
}

/* Blocks of at most 256 threads. */
__attribute__((address_space(3))) static float partial[256];

__attribute__((nvptx_kernel)) void blocksum(const float *x, float *y, int n) {
    int t = __nvvm_read_ptx_sreg_tid_x();
    int i = TID();
    partial[t] = i < n ? x[i] * x[i] : 0.0f;
    __syncthreads();
    for (int s = __nvvm_read_ptx_sreg_ntid_x() / 2; s > 0; s /= 2) {
        if (t < s)
            partial[t] += partial[t + s];
        __syncthreads();
    }
    if (t == 0)
        y[__nvvm_read_ptx_sreg_ctaid_x()] = partial[0];
}

/* Dynamic shared memory: blockDim.x floats at launch (the gradient: twice as many bytes). */
__attribute__((address_space(3))) extern float dynamic_partial[];

__attribute__((nvptx_kernel)) void dynsum(const float *x, float *y, int n) {
    int t = __nvvm_read_ptx_sreg_tid_x();
    int i = TID();
    dynamic_partial[t] = i < n ? x[i] * x[i] : 0.0f;
    __syncthreads();
    for (int s = __nvvm_read_ptx_sreg_ntid_x() / 2; s > 0; s /= 2) {
        if (t < s)
            dynamic_partial[t] += dynamic_partial[t + s];
        __syncthreads();
    }
    if (t == 0)
        y[__nvvm_read_ptx_sreg_ctaid_x()] = dynamic_partial[0];
}
