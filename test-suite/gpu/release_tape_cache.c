// GPU code keeps no tape cache (stacks take chunks from device malloc and give them back at
// once, `zyg_transform::stack`): `__zyg_release_tape_cache()` in device code is filled in
// with an empty body, and the module has no thread-local global and no thread-exit
// registration, which the NVPTX back end could not compile.
// RUN: %clang --target=nvptx64-nvidia-cuda -march=sm_70 -Xclang -target-feature -Xclang +ptx75 -O2 -S -emit-llvm %s -o %t.ll
// RUN: %zyg grad -O0 %t.ll -o %t.grad.ll
// RUN: FileCheck %s < %t.grad.ll
// RUN: %zyg grad %t.ll -o %t.O2.grad.ll
// RUN: %zyg compile %t.O2.grad.ll -o %t.ptx --target nvptx64 --gpu sm_70
// CHECK-NOT: thread_local
// CHECK-NOT: __cxa_thread_atexit_impl
// CHECK: define internal void @__zyg_release_tape_cache()
// CHECK-NEXT: entry:
// CHECK-NEXT: ret void
float __enzyme_autodiff(void *, ...);
void __zyg_release_tape_cache(void);
extern int enzyme_const, enzyme_dup;

static float f(const float *x, int n) {
    float s = 0;
    for (int i = 0; i < n; i++)
        s += x[i] * x[i] * x[(i + 1) % n];
    return s;
}

__attribute__((nvptx_kernel)) void kernel(const float *x, float *dx, int n) {
    __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, n);
    __zyg_release_tape_cache();
}
