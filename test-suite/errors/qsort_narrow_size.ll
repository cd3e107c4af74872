; A qsort of differentiated memory whose element count and size are not 64-bit integers (a
; target whose `size_t` is 32 bits) is refused: zyg's sort helpers take 64-bit sizes.
; RUN: not %zyg grad %s -o %t.out.ll 2>&1 | FileCheck %s
; RUN: not test -e %t.out.ll
; CHECK: in function `sorted_first`{{.*}}: this `qsort`'s element count and size are not 64-bit integers
; CHECK-NEXT: qsort

define double @sorted_first(ptr %x) {
  call void @qsort(ptr %x, i32 4, i32 8, ptr @by_value)
  %v = load double, ptr %x
  %w = fmul double %v, %v
  ret double %w
}

define i32 @by_value(ptr %a, ptr %b) {
  %x = load double, ptr %a
  %y = load double, ptr %b
  %lt = fcmp olt double %x, %y
  %r = select i1 %lt, i32 -1, i32 1
  ret i32 %r
}

define double @request(ptr %x, ptr %dx) {
  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @sorted_first, ptr %x, ptr %dx)
  ret double %r
}

declare double @__enzyme_autodiff(ptr, ...)
declare void @qsort(ptr, i32, i32, ptr)
