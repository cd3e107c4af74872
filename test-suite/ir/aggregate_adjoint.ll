; The adjoint of aggregates held in SSA values (`insertvalue`/`extractvalue`): one built
; field by field (a call's result, which the optimiser cannot fold away) and taken apart in
; its own block keeps its adjoint in SSA values too, one
; field updated per `extractvalue` (no accumulator in memory; an accumulator added into
; field by field made the adjoint grow with the square of the aggregate's size, and a
; second-order gradient of an unrolled loop took 50 s in SROA). An aggregate used in a later
; block keeps its accumulator (a multi-index `extractvalue` adds into one field of it). The
; gradient is checked against the closed form and central differences at three points, at
; -O0 and -O2.
; RUN: %zyg grad %s -O0 -S -o %t.O0.ll --fn wide --args dup
; RUN: %clang -I %include %S/Inputs/aggregate_adjoint_main.c %t.O0.ll -lm -o %t.O0.exe && %t.O0.exe | FileCheck --check-prefix=OUT %s
; RUN: %zyg grad %s -O2 -S -o %t.O2.ll --fn wide --args dup
; RUN: %clang -I %include %S/Inputs/aggregate_adjoint_main.c %t.O2.ll -lm -o %t.O2.exe && %t.O2.exe | FileCheck --check-prefix=OUT %s
; OUT-NOT: FAIL
; OUT: ALL OK

define [8 x double] @pack(ptr %x) noinline {
entry:
  %p0 = getelementptr inbounds double, ptr %x, i64 0
  %a0 = load double, ptr %p0
  %p1 = getelementptr inbounds double, ptr %x, i64 1
  %a1 = load double, ptr %p1
  %p2 = getelementptr inbounds double, ptr %x, i64 2
  %a2 = load double, ptr %p2
  %p3 = getelementptr inbounds double, ptr %x, i64 3
  %a3 = load double, ptr %p3
  %p4 = getelementptr inbounds double, ptr %x, i64 4
  %a4 = load double, ptr %p4
  %p5 = getelementptr inbounds double, ptr %x, i64 5
  %a5 = load double, ptr %p5
  %p6 = getelementptr inbounds double, ptr %x, i64 6
  %a6 = load double, ptr %p6
  %p7 = getelementptr inbounds double, ptr %x, i64 7
  %a7 = load double, ptr %p7
  %r0 = insertvalue [8 x double] poison, double %a0, 0
  %r1 = insertvalue [8 x double] %r0, double %a1, 1
  %r2 = insertvalue [8 x double] %r1, double %a2, 2
  %r3 = insertvalue [8 x double] %r2, double %a3, 3
  %r4 = insertvalue [8 x double] %r3, double %a4, 4
  %r5 = insertvalue [8 x double] %r4, double %a5, 5
  %r6 = insertvalue [8 x double] %r5, double %a6, 6
  %r7 = insertvalue [8 x double] %r6, double %a7, 7
  ret [8 x double] %r7
}

define double @wide(ptr %x) {
entry:
  %r7 = call [8 x double] @pack(ptr %x)
  %e0 = extractvalue [8 x double] %r7, 0
  %e1 = extractvalue [8 x double] %r7, 1
  %e2 = extractvalue [8 x double] %r7, 2
  %e3 = extractvalue [8 x double] %r7, 3
  %e4 = extractvalue [8 x double] %r7, 4
  %e5 = extractvalue [8 x double] %r7, 5
  %e6 = extractvalue [8 x double] %r7, 6
  %e7 = extractvalue [8 x double] %r7, 7
  %e0b = extractvalue [8 x double] %r7, 0
  %m01 = fmul double %e0, %e1
  %m07 = fmul double %e0b, %e7
  %s0 = fadd double %m01, %m07
  %q2 = fmul double %e2, %e2
  %t2 = fadd double %s0, %q2
  %q3 = fmul double %e3, %e3
  %t3 = fadd double %t2, %q3
  %q4 = fmul double %e4, %e4
  %t4 = fadd double %t3, %q4
  %q5 = fmul double %e5, %e5
  %t5 = fadd double %t4, %q5
  %q6 = fmul double %e6, %e6
  %t6 = fadd double %t5, %q6
  %u0 = insertvalue { double, [2 x double] } poison, double %e2, 0
  %u1 = insertvalue { double, [2 x double] } %u0, double %e3, 1, 0
  %u2 = insertvalue { double, [2 x double] } %u1, double %e4, 1, 1
  br label %next

next:
  %f0 = extractvalue { double, [2 x double] } %u2, 0
  %f10 = extractvalue { double, [2 x double] } %u2, 1, 0
  %f11 = extractvalue { double, [2 x double] } %u2, 1, 1
  %f10b = extractvalue { double, [2 x double] } %u2, 1, 0
  %g0 = fmul double %f0, %f10
  %g1 = fmul double %f11, %f10b
  %g = fadd double %g0, %g1
  %res = fadd double %t6, %g
  ret double %res
}
