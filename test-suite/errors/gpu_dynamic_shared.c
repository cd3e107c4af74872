// Dynamic shared memory (`extern __shared__ float s[]`, a zero-length array in address
// space 3 whose size the launch gives) has no shadow yet: the shadow would need a dynamic
// region of its own beside the kernel's. An active value stored there is refused, naming the
// array, the function and the instruction; a kernel that keeps only constants there (no
// derivative flows through it) is still differentiated.
// RUN: %clang --target=nvptx64-nvidia-cuda -march=sm_70 -Xclang -target-feature -Xclang +ptx75 -O2 -g -S -emit-llvm %s -o %t.ll
// RUN: not %zyg grad %t.ll --fn scale_dynamic -o %t.out.ll 2>&1 | FileCheck %s
// RUN: not test -e %t.out.ll
// RUN: %zyg grad %t.ll --fn scale_by_table --args dup,const,dup,const -o %t.ok.ll
// RUN: FileCheck --check-prefix=OK %s < %t.ok.ll
// CHECK: in function `scale_dynamic` at {{.*}}gpu_dynamic_shared.c:20:{{[0-9]+}}:
// CHECK-SAME: an active value is stored to dynamic shared memory (`extern __shared__` @dyn); that is not supported yet
// OK: define ptx_kernel void @scale_by_table_grad(
// OK-NOT: __zyg_shadow_dyn
__attribute__((address_space(3))) extern float dyn[];

__attribute__((nvptx_kernel)) void scale_dynamic(const float *x, float *y, int n) {
    int t = __nvvm_read_ptx_sreg_tid_x();
    int i = __nvvm_read_ptx_sreg_ctaid_x() * __nvvm_read_ptx_sreg_ntid_x() + t;
    dyn[t] = i < n ? x[i] : 0.0f;
    __syncthreads();
    if (i < n) y[i] = dyn[t] * dyn[(t + 1) % __nvvm_read_ptx_sreg_ntid_x()];
}

__attribute__((nvptx_kernel)) void scale_by_table(const float *x, const float *table, float *y, int n) {
    int t = __nvvm_read_ptx_sreg_tid_x();
    int i = __nvvm_read_ptx_sreg_ctaid_x() * __nvvm_read_ptx_sreg_ntid_x() + t;
    dyn[t] = table[t];
    __syncthreads();
    if (i < n) y[i] = dyn[t] * x[i];
}
