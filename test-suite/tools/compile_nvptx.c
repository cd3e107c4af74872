// `zyg compile --target nvptx64` lowers a kernel (C with NVVM builtins, compiled by clang
// for nvptx64) to PTX for each GPU generation, with its math calls resolved to libdevice,
// and ptxas assembles the result.
// REQUIRES: ptxas
// RUN: %clang --target=nvptx64-nvidia-cuda -march=sm_70 -Xclang -target-feature -Xclang +ptx75 -O2 -S -emit-llvm %s -o %t.ll
// RUN: %zyg compile %t.ll -o %t.70.ptx --target nvptx64 --gpu sm_70
// RUN: %zyg compile %t.ll -o %t.80.ptx --target nvptx64 --gpu sm_80
// RUN: %zyg compile %t.ll -o %t.90.ptx --target nvptx64 --gpu sm_90
// RUN: FileCheck %s < %t.70.ptx
// RUN: %ptxas -arch=sm_70 %t.70.ptx -o %t.70.cubin
// RUN: %ptxas -arch=sm_80 %t.80.ptx -o %t.80.cubin
// RUN: %ptxas -arch=sm_90 %t.90.ptx -o %t.90.cubin
// RUN: not %zyg compile %t.ll -o %t.o --target nvptx64 2>&1 | FileCheck --check-prefix=NAME %s
// CHECK: .target sm_70
// CHECK: .entry saxpy_sin
// CHECK-NOT: .extern .func {{.*}}__nv_
// NAME: name the output `.ptx` (or `.s`)
float sinf(float);
double exp(double);

__attribute__((nvptx_kernel)) void saxpy_sin(float a, const float *x, float *y, int n) {
    int i = __nvvm_read_ptx_sreg_ctaid_x() * __nvvm_read_ptx_sreg_ntid_x() + __nvvm_read_ptx_sreg_tid_x();
    if (i < n)
        y[i] = a * sinf(x[i]) + y[i] * exp(x[i]);
}
