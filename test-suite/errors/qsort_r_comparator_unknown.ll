; A qsort_r whose comparator is not a function named at the call (here a pointer the
; caller passes in) is refused: glibc passes the comparator 4th and BSD 5th, and zyg tells
; them apart only by which argument names a function.
; RUN: not %zyg grad %s -o %t.out.ll 2>&1 | FileCheck %s
; RUN: not test -e %t.out.ll
; CHECK: in function `sorted_sum`{{.*}}: cannot tell which argument of this `qsort_r` is the comparator
; CHECK-NEXT: qsort_r

define double @sorted_sum(ptr %x, ptr %cmp, ptr %context) {
  call void @qsort_r(ptr %x, i64 4, i64 8, ptr %cmp, ptr %context)
  %v = load double, ptr %x
  %w = fmul double %v, %v
  ret double %w
}

define double @request(ptr %x, ptr %dx, ptr %cmp, ptr %context) {
  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @sorted_sum, ptr %x, ptr %dx, ptr @enzyme_const, ptr %cmp, ptr @enzyme_const, ptr %context)
  ret double %r
}

@enzyme_const = external global i32
declare double @__enzyme_autodiff(ptr, ...)
declare void @qsort_r(ptr, i64, i64, ptr, ptr)
