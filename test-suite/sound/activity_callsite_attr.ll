; IR attributes that declare calls inactive, as other front ends (Julia) and Enzyme's own
; preprocessing write them: "enzyme_inactive" on a function, "enzyme_inactive" on one call
; site (another call of the same function stays active), and !enzyme_inactive on a global
; (no shadow). model(x) = scale(x) x + sq(x) x + sq(x) with scale and the first sq inactive:
; d/dx = 2x + x^2 + 2x = 21 at x = 3 (differentiating everything would give 45). zyg's
; output calls @sq itself, not the name it gives the inactive call site while it works.
; RUN: %zyg grad %s -o %t.grad.ll -S
; RUN: FileCheck %s --check-prefix=IR < %t.grad.ll
; RUN: %clang %t.grad.ll -o %t.exe
; RUN: %t.exe | FileCheck %s
; CHECK: d = 21.000000
; IR-NOT: @__zyg_shadow_counter =
; IR-NOT: sq.zyg.inactive

@counter = global double 0.0, !enzyme_inactive !0
@.fmt = private constant [8 x i8] c"d = %f\0A\00"

define double @scale(double %x) #0 {
  %r = fmul double %x, 2.0
  ret double %r
}

define double @sq(double %x) {
  %r = fmul double %x, %x
  ret double %r
}

define double @model(double %x) {
  store double %x, ptr @counter
  %s = call double @scale(double %x)
  %q = call double @sq(double %x) #1
  %q2 = call double @sq(double %x)
  %a = fmul double %s, %x
  %b = fmul double %q, %x
  %c = fadd double %a, %b
  %d = fadd double %c, %q2
  ret double %d
}

declare double @__enzyme_autodiff(ptr, ...)
declare i32 @printf(ptr, ...)

define i32 @main() {
  %d = call double (ptr, ...) @__enzyme_autodiff(ptr @model, double 3.0)
  call i32 (ptr, ...) @printf(ptr @.fmt, double %d)
  ret i32 0
}

attributes #0 = { noinline "enzyme_inactive" }
attributes #1 = { "enzyme_inactive" }
!0 = !{}
