; Markers and flags as metadata strings, as IR from other front ends (MLIR, Julia) passes
; them, read like their C spellings; the derivatives are exact and known: d(x^2 y)/dx = 2 x y
; = 12 at (3, 2), and the cube the function writes has d(x^3)/dx = 27 at 3, its result
; (enzyme_const_return) unseeded. An unknown metadata marker is refused.
; RUN: %zyg grad %s -o %t.grad.ll
; RUN: %clang %t.grad.ll -o %t.exe
; RUN: %t.exe | FileCheck %s
; CHECK: dx = 12.000000
; CHECK: dcube = 27.000000
; RUN: sed 's/"enzyme_const"/"enzyme_constant"/' %s > %t.bad.ll
; RUN: not %zyg grad %t.bad.ll -o %t.out.ll 2>&1 | FileCheck %s --check-prefix=BAD
; RUN: not test -e %t.out.ll
; BAD: zyg: error: {{.*}}.bad.ll: in `main`: `enzyme_constant` is not a marker zyg knows

@.fmt = private constant [9 x i8] c"dx = %f\0A\00"
@.fmt2 = private constant [12 x i8] c"dcube = %f\0A\00"

define double @f(double %x, double %y) {
  %xx = fmul double %x, %x
  %r = fmul double %xx, %y
  ret double %r
}

define double @cube(ptr %out, double %x) {
  %xx = fmul double %x, %x
  %c = fmul double %xx, %x
  store double %c, ptr %out
  ret double %x
}

declare double @__enzyme_autodiff(ptr, ...)
declare i32 @printf(ptr, ...)

define i32 @main() {
  %dx = call double (ptr, ...) @__enzyme_autodiff(ptr @f, metadata !"enzyme_out", double 3.0, metadata !"enzyme_const", double 2.0)
  call i32 (ptr, ...) @printf(ptr @.fmt, double %dx)
  %out = alloca double
  %dout = alloca double
  store double 1.0, ptr %dout
  %d = call double (ptr, ...) @__enzyme_autodiff(ptr @cube, metadata !"enzyme_const_return", metadata !"enzyme_dup", ptr %out, ptr %dout, double 3.0)
  call i32 (ptr, ...) @printf(ptr @.fmt2, double %d)
  ret i32 0
}
