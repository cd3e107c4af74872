// A kernel with __syncthreads between a write and a read of global memory by different
// threads: the gradient kernel replays the barrier in its adjoint (at the mirrored point),
// so each thread's shadow updates are ordered as the primal's stores were. Barriers cannot
// run on the sequential CPU grid: this test checks the IR and that ptxas assembles it.
// REQUIRES: ptxas
// RUN: %clang --target=nvptx64-nvidia-cuda -march=sm_70 -Xclang -target-feature -Xclang +ptx75 -O2 -S -emit-llvm %s -o %t.ll
// RUN: %zyg grad %t.ll --fn smooth -o %t.grad.ll
// RUN: FileCheck %s < %t.grad.ll
// RUN: %zyg compile %t.grad.ll -o %t.ptx --target nvptx64 --gpu sm_80
// RUN: %ptxas -arch=sm_80 %t.ptx -o %t.cubin
// The primal's barrier, the adjoint of the reads after it (tmp is read by three threads:
// atomic), the replayed barrier, then the adjoint of the writes before it.
// CHECK: define ptx_kernel void @smooth_grad(
// CHECK: call void @llvm.nvvm.barrier
// CHECK: atomicrmw fadd
// CHECK: call void @llvm.nvvm.barrier
// CHECK: ret void
float sqrtf(float);

__attribute__((nvptx_kernel)) void smooth(const float *x, float *tmp, float *y, int n) {
    int i = __nvvm_read_ptx_sreg_ctaid_x() * __nvvm_read_ptx_sreg_ntid_x() + __nvvm_read_ptx_sreg_tid_x();
    if (i < n)
        tmp[i] = x[i] * x[i];
    __syncthreads();
    if (i > 0 && i < n - 1)
        y[i] = sqrtf(tmp[i - 1] + tmp[i] + tmp[i + 1] + 1.0f);
}
