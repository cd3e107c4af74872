; A loop in clang's canonical form, left only by its latch testing `%i.next == %n` with %n
; set before the loop: the adjoint computes the header's executions as (n - 0) / 1 and
; counts them down, so the primal records no trip count where the loop is left. The loop
; `power_sge` (left by `icmp sge`) still records one. Gradients are checked against finite
; differences by the e2e suite's loops at -O2, which clang writes in this form.
; RUN: %zyg grad %s -O0 -S -o - | FileCheck %s
; RUN: %zyg grad %s -O0 -S -o %t.ll && opt -passes=verify -disable-output %t.ll

declare double @__enzyme_autodiff(ptr, ...)

define double @power_eq(double %x, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %r = phi double [ 1.0, %entry ], [ %r.next, %loop ]
  %r.next = fmul double %r, %x
  %i.next = add nuw nsw i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret double %r.next
}

define double @power_sge(double %x, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %r = phi double [ 1.0, %entry ], [ %r.next, %loop ]
  %r.next = fmul double %r, %x
  %i.next = add nuw nsw i64 %i, 1
  %done = icmp sge i64 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret double %r.next
}

define double @requests(double %x) {
  %a = call double (ptr, ...) @__enzyme_autodiff(ptr @power_eq, double %x, i64 5)
  %b = call double (ptr, ...) @__enzyme_autodiff(ptr @power_sge, double %x, i64 5)
  %s = fadd double %a, %b
  ret double %s
}

; CHECK-LABEL: define internal double @power_eq.zyg.primal.ac(
; CHECK: exit:
; CHECK-NOT: store i64
; CHECK: ret double
; CHECK-LABEL: define internal { double } @power_eq.zyg.adjoint.ac(
; CHECK: adj.exit:
; CHECK: [[SPAN:%.*]] = sub i64 {{%.*}}, 0
; CHECK: [[COUNT:%.*]] = udiv i64 [[SPAN]], 1
; CHECK: adj.loop:
; CHECK-NEXT: phi i64 [ [[COUNT]], %adj.exit ]

; CHECK-LABEL: define internal double @power_sge.zyg.primal.ac(
; CHECK: exit:
; CHECK: store i64
; CHECK: ret double
