// Vector mode in GPU code is not supported yet (forward mode there works: gpu/kernel_forward.c):
// `enzyme_width` on a `__enzyme_fwddiff` in device code is an error naming it, and so is
// `--width` for a kernel's tangent export; nothing is written.
// RUN: rm -f %t.out.ll %t.out2.ll
// RUN: %clang --target=nvptx64-nvidia-cuda -march=sm_70 -Xclang -target-feature -Xclang +ptx75 -O2 -S -emit-llvm %s -o %t.ll
// RUN: not %zyg grad %t.ll -o %t.out.ll 2>&1 | FileCheck %s
// RUN: not test -e %t.out.ll
// RUN: %clang --target=nvptx64-nvidia-cuda -march=sm_70 -Xclang -target-feature -Xclang +ptx75 -O2 -DNO_REQUEST -S -emit-llvm %s -o %t2.ll
// RUN: not %zyg grad %t2.ll --fn slope --mode forward --width 2 -o %t.out2.ll 2>&1 | FileCheck --check-prefix=EXPORT %s
// RUN: not test -e %t.out2.ll
// CHECK: zyg: error: {{.*}}.ll: in function `f`{{.*}}: vector mode (`enzyme_width`) in GPU code is not supported yet; make one request per direction
// EXPORT: zyg: error: {{.*}}.ll: --width 2: vector mode for GPU kernels is not supported yet
typedef struct { float a, b; } two;
two __enzyme_fwddiff(void *, ...);
extern int enzyme_width;

static float f(float x) { return x * x * x; }

__attribute__((nvptx_kernel)) void slope(float *x, float *d, int n) {
    int i = __nvvm_read_ptx_sreg_tid_x();
    if (i < n) {
#ifndef NO_REQUEST
        two t = __enzyme_fwddiff((void *)f, enzyme_width, 2, x[i], 1.0f, 2.0f);
        d[i] = t.a + t.b;
#else
        d[i] = f(x[i]);
#endif
    }
}
