// Forward mode in GPU code is not supported yet: a `__enzyme_fwddiff` in device code is an
// error naming it, and nothing is written (reverse mode's requests there work, see
// gpu/kernel_device_request.c).
// RUN: rm -f %t.out.ll
// RUN: %clang --target=nvptx64-nvidia-cuda -march=sm_70 -Xclang -target-feature -Xclang +ptx75 -O2 -S -emit-llvm %s -o %t.ll
// RUN: not %zyg grad %t.ll -o %t.out.ll 2>&1 | FileCheck %s
// RUN: not test -e %t.out.ll
// CHECK: zyg: error: {{.*}}.ll: in function `f`{{.*}}: forward mode (`__enzyme_fwddiff`) is not supported in GPU code yet; use `__enzyme_autodiff`
float __enzyme_fwddiff(void *, ...);

static float f(float x) { return x * x * x; }

__attribute__((nvptx_kernel)) void slope(float *x, float *d, int n) {
    int i = __nvvm_read_ptx_sreg_tid_x();
    if (i < n)
        d[i] = __enzyme_fwddiff((void *)f, x[i], 1.0f);
}
