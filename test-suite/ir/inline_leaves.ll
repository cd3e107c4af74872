; Which generated functions are forced inline: the primal and adjoint of a small function
; with no differentiated callees (`leaf`) are alwaysinline, so that inlined into their caller
; the tape record between them becomes registers; `outer`, which calls `leaf`, is left to
; LLVM's inliner (forcing whole chains of callees could multiply the code at each level).
; RUN: %zyg grad %s -O0 -S -o - | FileCheck %s

declare double @__enzyme_autodiff(ptr, ...)
declare double @llvm.sin.f64(double)

define internal double @leaf(double %x) {
  %s = call double @llvm.sin.f64(double %x)
  %y = fmul double %s, %x
  ret double %y
}

define internal double @outer(double %x) {
  %a = call double @leaf(double %x)
  %b = call double @leaf(double %a)
  %y = fmul double %a, %b
  ret double %y
}

define double @request(double %x) {
  %d = call double (ptr, ...) @__enzyme_autodiff(ptr @outer, double %x)
  ret double %d
}

; CHECK: define internal double @leaf.zyg.primal.a(double %0, ptr %1) #[[LEAF:[0-9]+]] {
; CHECK: define internal { double } @leaf.zyg.adjoint.a(ptr %0, double %1) #[[LEAF]] {
; CHECK: define internal double @outer.zyg.primal.a(double %0, ptr %1) {
; CHECK: define internal { double } @outer.zyg.adjoint.a(ptr %0, double %1) {
; CHECK: attributes #[[LEAF]] = { alwaysinline }
