// A CUDA kernel written in C with NVVM builtins (no CUDA headers, no nvcc): clang-22 compiles
// it for nvptx64, `zyg grad --fn model` adds its gradient kernel `model_grad`, and
// `zyg compile --target nvptx64` lowers both to PTX (see the Makefile).
//
// Each thread i smooths x around i, evaluates a polynomial whose coefficients c every thread
// shares, and scales its tanh by a global gain:
//   u_i = x[i-1]/4 + x[i]/2 + x[i+1]/4   (x clamped at the ends)
//   y_i = gain * tanh(c_0 + c_1 u_i + ... + c_degree u_i^degree)
// In the gradient, x's shadow is shared by three threads and c's by all of them (atomic
// adds), the loop over coefficients is taped, and gain is an `out` scalar.
float tanhf(float);

#define THREAD_INDEX() \
    (__nvvm_read_ptx_sreg_ctaid_x() * __nvvm_read_ptx_sreg_ntid_x() + __nvvm_read_ptx_sreg_tid_x())

__attribute__((nvptx_kernel)) void model(float gain, const float *x, const float *c, int degree, float *y, int n) {
    int i = THREAD_INDEX();
    if (i >= n)
        return;
    float left = x[i > 0 ? i - 1 : i], right = x[i < n - 1 ? i + 1 : i];
    float u = 0.25f * left + 0.5f * x[i] + 0.25f * right;
    float acc = c[degree];
    for (int k = degree - 1; k >= 0; k--)
        acc = acc * u + c[k];
    y[i] = gain * tanhf(acc);
}
