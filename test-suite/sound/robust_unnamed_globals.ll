; Unnamed globals and functions (`@0`, as OpenMP's outlined code and some C++ code have):
; zyg-ir keyed a global by its name, and the writer failed with "reference to unknown
; global `@`". Here an unnamed constant table, an unnamed global that the function writes
; (so it gets a shadow) and an unnamed function are read, differentiated and written back,
; and the gradient is checked against the exact derivative: f(x) = 432 x^6, so
; f'(x) = 2592 x^5 (81 at 0.5, 2592 at 1, -615.09375 at -0.75), at -O0 and -O2.
; RUN: %zyg grad %s -O0 -o %t.O0.ll
; RUN: %zyg grad %s -O2 -o %t.O2.ll
; RUN: %clang %t.O0.ll -o %t.O0 && %t.O0 | FileCheck %s
; RUN: %clang %t.O2.ll -o %t.O2 && %t.O2 | FileCheck %s
; RUN: FileCheck %s --check-prefix=IR < %t.O0.ll
; CHECK: 81.000000
; CHECK-NEXT: 2592.000000
; CHECK-NEXT: -615.093750
; IR: @0 = private unnamed_addr constant [2 x double]
; IR: @1 = internal global double

@0 = private unnamed_addr constant [2 x double] [double 1.5, double 2.0]
@1 = internal global double 3.0
@.fmt = private unnamed_addr constant [6 x i8] c"%.6f\0A\00"

; 2 x^2 * @1, which it then stores in @1.
define internal double @2(double %x) {
  %a = load double, ptr getelementptr inbounds ([2 x double], ptr @0, i64 0, i64 1)
  %b = load double, ptr @1
  %y = fmul double %x, %a
  %z = fmul double %y, %x
  %w = fmul double %z, %b
  store double %w, ptr @1
  ret double %w
}

define double @f(double %x) {
  store double 3.0, ptr @1
  %r = call double @2(double %x)
  %s = call double @2(double %r)
  ret double %s
}

declare double @__enzyme_autodiff(ptr, ...)
declare i32 @printf(ptr, ...)

define i32 @main() {
  %a = call double (ptr, ...) @__enzyme_autodiff(ptr @f, double 0.5)
  call i32 (ptr, ...) @printf(ptr @.fmt, double %a)
  %b = call double (ptr, ...) @__enzyme_autodiff(ptr @f, double 1.0)
  call i32 (ptr, ...) @printf(ptr @.fmt, double %b)
  %c = call double (ptr, ...) @__enzyme_autodiff(ptr @f, double -0.75)
  call i32 (ptr, ...) @printf(ptr @.fmt, double %c)
  ret i32 0
}
