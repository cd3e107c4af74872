// Dynamic shared memory (`extern __shared__ float s[]`, a zero-length array in address
// space 3 whose size the launch gives) is differentiated: its shadow is the second half of a
// region launched twice as large (test-suite/gpu/kernel_dynamic_shared.c). What is still
// refused: its address passed to a function zyg has no body or rule for, which may write
// anything there; the error names the function and the place. A kernel that keeps only
// constants there is differentiated too, and its gradient, like every gradient that reaches
// the region, checks the launch's dynamic size first (a trap unless it is a non-zero multiple
// of 32 bytes) and needs twice the primal's bytes.
// RUN: %clang --target=nvptx64-nvidia-cuda -march=sm_70 -Xclang -target-feature -Xclang +ptx75 -O2 -g -S -emit-llvm %s -o %t.ll
// RUN: rm -f %t.out.ll
// RUN: not %zyg grad %t.ll --fn escapes -o %t.out.ll 2>&1 | FileCheck %s
// RUN: not test -e %t.out.ll
// RUN: %zyg grad %t.ll --fn scale_by_table --args dup,const,dup,const -o %t.ok.ll
// RUN: FileCheck --check-prefix=OK %s < %t.ok.ll
// CHECK: in function `escapes` at {{.*}}gpu_dynamic_shared.c:27:{{[0-9]+}}:
// CHECK-SAME: no derivative is known for `consume`
// OK-NOT: __zyg_shadow_dyn
// OK: define ptx_kernel void @scale_by_table_grad(
// OK: call i32 @llvm.nvvm.read.ptx.sreg.dynamic_smem_size()
// OK: call void @llvm.trap()
__attribute__((address_space(3))) extern float dyn[];
void consume(__attribute__((address_space(3))) float *p, int n);

__attribute__((nvptx_kernel)) void escapes(const float *x, float *y, int n) {
    int t = __nvvm_read_ptx_sreg_tid_x();
    dyn[t] = x[t] * x[t];
    consume(dyn, n);
    __syncthreads();
    y[t] = dyn[(t + 1) % __nvvm_read_ptx_sreg_ntid_x()];
}

__attribute__((nvptx_kernel)) void scale_by_table(const float *x, const float *table, float *y, int n) {
    int t = __nvvm_read_ptx_sreg_tid_x();
    int i = __nvvm_read_ptx_sreg_ctaid_x() * __nvvm_read_ptx_sreg_ntid_x() + t;
    dyn[t] = table[t];
    __syncthreads();
    if (i < n) y[i] = dyn[t] * x[i];
}
