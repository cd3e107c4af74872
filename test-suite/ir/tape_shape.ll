; The tape's shape: a function without loops keeps its alphas in fixed tape slots (no
; stack); a loop pushes one record per iteration, and the adjoint reads the newest record,
; pops it, and frees the stack at the end. Join blocks record their predecessor in a phi.
; RUN: %zyg grad %s -O0 -S -o - | FileCheck %s
; RUN: %zyg grad %s -O0 -S -o %t.ll && opt -passes=verify -disable-output %t.ll
; RUN: %zyg grad %s -O2 -S -o - | FileCheck --check-prefix=OPT %s

declare double @__enzyme_autodiff(ptr, ...)
declare double @llvm.sin.f64(double)
declare double @llvm.exp.f64(double)

define double @straight(double %x) {
entry:
  %s = call double @llvm.sin.f64(double %x)
  %y = fmul double %s, %x
  ret double %y
}

define double @diamond(double %x) {
entry:
  %c = fcmp ogt double %x, 0.0
  br i1 %c, label %pos, label %neg
pos:
  %a = call double @llvm.sin.f64(double %x)
  br label %join
neg:
  %b = call double @llvm.exp.f64(double %x)
  br label %join
join:
  %r = phi double [ %a, %pos ], [ %b, %neg ]
  ret double %r
}

define double @power(double %x, i32 %n) {
entry:
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %r = phi double [ 1.0, %entry ], [ %r.next, %loop ]
  %r.next = fmul double %r, %x
  %i.next = add i32 %i, 1
  %done = icmp sge i32 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret double %r.next
}

define double @requests(double %x) {
  %a = call double (ptr, ...) @__enzyme_autodiff(ptr @straight, double %x)
  %b = call double (ptr, ...) @__enzyme_autodiff(ptr @diamond, double %x)
  %c = call double (ptr, ...) @__enzyme_autodiff(ptr @power, double %x, i32 5)
  %ab = fadd double %a, %b
  %abc = fadd double %ab, %c
  ret double %abc
}

; CHECK-LABEL: define internal double @straight.zyg.primal.a(double %0, ptr %1)
; CHECK-NOT: __zyg_stack_push
; CHECK: ret double

; CHECK-LABEL: define internal double @diamond.zyg.primal.a(
; CHECK: join:
; CHECK-NEXT: [[PRED:%.*]] = phi i8 [ 0, %pos ], [ 1, %neg ]
; CHECK: store i8 [[PRED]]

; CHECK-LABEL: define internal { double } @diamond.zyg.adjoint.a(
; CHECK: switch i8 {{%.*}}, label %[[EDGE0:.*]] [
; CHECK-NEXT: i8 1, label %[[EDGE1:.*]]

; CHECK-LABEL: define internal double @power.zyg.primal.ac(
; CHECK: loop:
; CHECK: call ptr @__zyg_stack_push(
; CHECK-LABEL: define internal { double } @power.zyg.adjoint.ac(
; CHECK: call ptr @__zyg_stack_top(
; CHECK: call void @__zyg_stack_pop(
; CHECK: exit:
; CHECK: call void @__zyg_stack_free(

; After -O2 the stack helpers are inlined into the gradient: realloc, no calls to them
; (the cache's thread-exit destructor is registered by its address, not called).
; OPT-LABEL: define double @requests(
; OPT-NOT: call {{[^(]*}}@__zyg_stack
; OPT: ret double
