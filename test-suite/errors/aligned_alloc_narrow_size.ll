; An aligned allocation whose size and alignment are not 64-bit integers (a target whose
; `size_t` is 32 bits) is refused: zyg's aligned shadow helper takes 64-bit sizes.
; RUN: not %zyg grad %s -o %t.out.ll 2>&1 | FileCheck %s
; RUN: not test -e %t.out.ll
; CHECK: in function `scaled`{{.*}}: this aligned allocation's size and alignment are not 64-bit integers
; CHECK-NEXT: aligned_alloc

define double @scaled(ptr %x) {
  %m = call ptr @aligned_alloc(i32 32, i32 64)
  %v = load double, ptr %x
  %w = fmul double %v, %v
  store double %w, ptr %m
  %r = load double, ptr %m
  call void @free(ptr %m)
  ret double %r
}

define double @request(ptr %x, ptr %dx) {
  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @scaled, ptr %x, ptr %dx)
  ret double %r
}

declare double @__enzyme_autodiff(ptr, ...)
declare ptr @aligned_alloc(i32, i32)
declare void @free(ptr)
