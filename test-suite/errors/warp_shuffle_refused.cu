// Warp shuffles zyg has no adjoint for are refused by name: an index shuffle (a broadcast
// from one lane, `__shfl_sync`) and a shuffle within 16-lane parts of a warp.
// REQUIRES: cuda-headers
// RUN: %cuda-root %t.cuda
// RUN: %clang -x cuda --cuda-path=%t.cuda --cuda-gpu-arch=sm_70 --cuda-device-only -nocudalib -Wno-unknown-cuda-version -O2 -S -emit-llvm %s -o %t.idx.ll -DINDEX
// RUN: not %zyg grad %t.idx.ll --fn k --args dup,dup -o %t.idx.grad.ll 2>&1 | FileCheck --check-prefix=INDEX %s
// RUN: not test -e %t.idx.grad.ll
// RUN: %clang -x cuda --cuda-path=%t.cuda --cuda-gpu-arch=sm_70 --cuda-device-only -nocudalib -Wno-unknown-cuda-version -O2 -S -emit-llvm %s -o %t.w.ll
// RUN: not %zyg grad %t.w.ll --fn k --args dup,dup -o %t.w.grad.ll 2>&1 | FileCheck --check-prefix=WIDTH %s
// INDEX: zyg: error: {{.*}}in function `k`
// INDEX-SAME: the warp shuffle `llvm.nvvm.shfl.sync.idx.f32` on active values is not supported yet
// WIDTH: zyg: error: {{.*}}in function `k`
// WIDTH-SAME: a warp shuffle within parts of a warp (`llvm.nvvm.shfl.sync.down.f32` with a width other than 32) is not supported yet
extern "C" __global__ void k(const float *x, float *out) {
    int i = threadIdx.x;
#ifdef INDEX
    out[i] = __shfl_sync(0xffffffffu, x[i], 0) * x[i];
#else
    out[i] = __shfl_down_sync(0xffffffffu, x[i], 1, 16) * x[i];
#endif
}
