; The blocks of a loop outside its inner loops write into the record the loop's header
; pushes, instead of pushing records of their own: here `latch` (after an inner loop) shares
; `outer`'s record, so the outer loop pushes one record per iteration, holding both blocks'
; values. `inner` is its own loop and keeps its own stack. The gradient is checked against finite differences in
; test-suite/e2e/loop_shared_record.c.
; RUN: %zyg grad %s -O0 -S -o - | FileCheck %s
; RUN: %zyg grad %s -O0 -S -o %t.ll && opt -passes=verify -disable-output %t.ll

declare double @__enzyme_autodiff(ptr, ...)
declare double @llvm.sin.f64(double)
declare double @llvm.cos.f64(double)

define double @f(double %x, i32 %n, i32 %m) {
entry:
  br label %outer
outer:
  %i = phi i32 [ 0, %entry ], [ %i.next, %latch ]
  %s = phi double [ %x, %entry ], [ %s.next, %latch ]
  %a = call double @llvm.sin.f64(double %s)
  br label %inner
inner:
  %j = phi i32 [ 0, %outer ], [ %j.next, %inner ]
  %t = phi double [ 0.0, %outer ], [ %t.next, %inner ]
  %at = fmul double %t, %a
  %c = call double @llvm.cos.f64(double %at)
  %t.next = fadd double %t, %c
  %j.next = add i32 %j, 1
  %jdone = icmp sge i32 %j.next, %m
  br i1 %jdone, label %latch, label %inner
latch:
  %u = fmul double %a, %t.next
  %v = fmul double %u, %s
  %s.next = fmul double %v, 0.5
  %i.next = add i32 %i, 1
  %done = icmp sge i32 %i.next, %n
  br i1 %done, label %exit, label %outer
exit:
  ret double %s.next
}

define double @request(double %x) {
  %d = call double (ptr, ...) @__enzyme_autodiff(ptr @f, double %x, i32 3, i32 4)
  ret double %d
}

; CHECK-LABEL: define internal double @f.zyg.primal.acc(
; CHECK: outer:
; CHECK: [[REC:%.*]] = call ptr @__zyg_stack_push(
; CHECK: inner:
; CHECK: call ptr @__zyg_stack_push(
; CHECK: latch:
; CHECK-NOT: call ptr @__zyg_stack_push(
; CHECK: getelementptr {{.*}}, ptr [[REC]],
; CHECK: exit:

; The latch's adjoint reads the header's record without popping it; the header pops.
; CHECK-LABEL: define internal { double } @f.zyg.adjoint.acc(
; CHECK: adj.latch:
; CHECK-NOT: call void @__zyg_stack_pop(
; CHECK: adj.inner:
; CHECK: adj.outer:
; CHECK: call void @__zyg_stack_pop(
