; Gathers and scatters through vectors of pointers, called directly (what clang emits with
; AVX-512), differentiated and checked against finite differences by a C driver
; (Inputs/gather_intrinsics.c) linked into the same module: splats of one pointer (every
; lane reads or writes the same element), indexed accesses with duplicate lanes, masks,
; passthru lanes, <8 x float>, a phi of pointer vectors in a loop, a select of two, a lane
; taken out with extractelement, and llvm.vector.reduce.fmul with zero lanes.
; RUN: %clang -O1 -S -emit-llvm -I %include %S/Inputs/gather_intrinsics.c -o %t.driver.ll
; RUN: llvm-link -S %t.driver.ll %s -o %t.linked.ll
; RUN: %zyg grad %t.linked.ll -O0 -o %t.O0.ll
; RUN: %clang %t.O0.ll -lm -o %t.O0.exe
; RUN: %t.O0.exe | FileCheck %s
; RUN: %zyg grad %t.linked.ll -O2 -o %t.O2.ll
; RUN: %clang -O2 -march=native %t.O2.ll -lm -o %t.O2.exe
; RUN: %t.O2.exe | FileCheck %s
; CHECK-NOT: FAIL
; CHECK: ALL OK

declare <4 x double> @llvm.masked.gather.v4f64.v4p0(<4 x ptr>, <4 x i1>, <4 x double>)
declare <8 x float> @llvm.masked.gather.v8f32.v8p0(<8 x ptr>, <8 x i1>, <8 x float>)
declare void @llvm.masked.scatter.v4f64.v4p0(<4 x double>, <4 x ptr>, <4 x i1>)
declare double @llvm.vector.reduce.fadd.v4f64(double, <4 x double>)
declare float @llvm.vector.reduce.fadd.v8f32(float, <8 x float>)
declare double @llvm.vector.reduce.fmul.v4f64(double, <4 x double>)

; The mask from four ints: lane i is on where m[i] != 0.
define internal <4 x i1> @mask4(ptr %m) {
  %mi = load <4 x i32>, ptr %m, align 4
  %mask = icmp ne <4 x i32> %mi, zeroinitializer
  ret <4 x i1> %mask
}

; v = gather(splat(&x[1]), mask, w[0..4]); sum of v².
define double @gather_splat(ptr %x, ptr %w, ptr %m) {
  %p1 = getelementptr inbounds double, ptr %x, i64 1
  %ins = insertelement <4 x ptr> poison, ptr %p1, i64 0
  %ptrs = shufflevector <4 x ptr> %ins, <4 x ptr> poison, <4 x i32> zeroinitializer
  %mask = call <4 x i1> @mask4(ptr %m)
  %pass = load <4 x double>, ptr %w, align 8
  %v = call <4 x double> @llvm.masked.gather.v4f64.v4p0(<4 x ptr> align 8 %ptrs, <4 x i1> %mask, <4 x double> %pass)
  %sq = fmul <4 x double> %v, %v
  %s = call double @llvm.vector.reduce.fadd.v4f64(double 0.0, <4 x double> %sq)
  ret double %s
}

; v[i] = x[idx[i]] (duplicates allowed), masked, passthru 0; sum of c[i] v[i]² with c = 1..4.
define double @gather_indexed(ptr %x, ptr %idx, ptr %m) {
  %iv = load <4 x i64>, ptr %idx, align 8
  %ptrs = getelementptr inbounds double, ptr %x, <4 x i64> %iv
  %mask = call <4 x i1> @mask4(ptr %m)
  %v = call <4 x double> @llvm.masked.gather.v4f64.v4p0(<4 x ptr> align 8 %ptrs, <4 x i1> %mask, <4 x double> zeroinitializer)
  %cv = fmul <4 x double> %v, <double 1.0, double 2.0, double 3.0, double 4.0>
  %sq = fmul <4 x double> %cv, %v
  %s = call double @llvm.vector.reduce.fadd.v4f64(double 0.0, <4 x double> %sq)
  ret double %s
}

; Eight float lanes through i32 indices, all on: sum of v³.
define float @gather_float8(ptr %x, ptr %idx) {
  %iv = load <8 x i32>, ptr %idx, align 4
  %ptrs = getelementptr inbounds float, ptr %x, <8 x i32> %iv
  %v = call <8 x float> @llvm.masked.gather.v8f32.v8p0(<8 x ptr> align 4 %ptrs, <8 x i1> splat (i1 true), <8 x float> poison)
  %v2 = fmul <8 x float> %v, %v
  %v3 = fmul <8 x float> %v2, %v
  %s = call float @llvm.vector.reduce.fadd.v8f32(float 0.0, <8 x float> %v3)
  ret float %s
}

; y[idx[i]] = x[i]² for the lanes on; with duplicate indices the last lane's store stays.
define void @scatter_indexed(ptr %y, ptr %x, ptr %idx, ptr %m) {
  %xv = load <4 x double>, ptr %x, align 8
  %sq = fmul <4 x double> %xv, %xv
  %iv = load <4 x i64>, ptr %idx, align 8
  %ptrs = getelementptr inbounds double, ptr %y, <4 x i64> %iv
  %mask = call <4 x i1> @mask4(ptr %m)
  call void @llvm.masked.scatter.v4f64.v4p0(<4 x double> %sq, <4 x ptr> align 8 %ptrs, <4 x i1> %mask)
  ret void
}

; Every lane on writes y[2] = 3 x[i] + (y[2] before): the last lane on stays. Its old value
; feeds every lane.
define void @scatter_splat(ptr %y, ptr %x, ptr %m) {
  %p = getelementptr inbounds double, ptr %y, i64 2
  %old = load double, ptr %p, align 8
  %oi = insertelement <4 x double> poison, double %old, i64 0
  %os = shufflevector <4 x double> %oi, <4 x double> poison, <4 x i32> zeroinitializer
  %xv = load <4 x double>, ptr %x, align 8
  %t = fmul <4 x double> %xv, <double 3.0, double 3.0, double 3.0, double 3.0>
  %v = fadd <4 x double> %t, %os
  %ins = insertelement <4 x ptr> poison, ptr %p, i64 0
  %ptrs = shufflevector <4 x ptr> %ins, <4 x ptr> poison, <4 x i32> zeroinitializer
  %mask = call <4 x i1> @mask4(ptr %m)
  call void @llvm.masked.scatter.v4f64.v4p0(<4 x double> %v, <4 x ptr> align 8 %ptrs, <4 x i1> %mask)
  ret void
}

; A vector of pointers stepping through x in a loop (a phi, a vector getelementptr from a
; splat), n times four elements; then a select between a splat of y and the next pointers,
; whose lane 1 is loaded: acc + t² with t = y[0] (which != 0) or x[4n + 1].
define double @gather_loop(ptr %x, ptr %y, i64 %n, i32 %which) {
entry:
  %ins = insertelement <4 x ptr> poison, ptr %x, i64 0
  %sx = shufflevector <4 x ptr> %ins, <4 x ptr> poison, <4 x i32> zeroinitializer
  %base = getelementptr inbounds double, <4 x ptr> %sx, <4 x i64> <i64 0, i64 1, i64 2, i64 3>
  br label %loop

loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %pv = phi <4 x ptr> [ %base, %entry ], [ %pv.next, %loop ]
  %acc = phi double [ 0.0, %entry ], [ %acc.next, %loop ]
  %v = call <4 x double> @llvm.masked.gather.v4f64.v4p0(<4 x ptr> align 8 %pv, <4 x i1> splat (i1 true), <4 x double> poison)
  %v2 = fmul <4 x double> %v, %v
  %acc.next = call double @llvm.vector.reduce.fadd.v4f64(double %acc, <4 x double> %v2)
  %pv.next = getelementptr inbounds double, <4 x ptr> %pv, i64 4
  %i.next = add i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %exit, label %loop

exit:
  %c = icmp ne i32 %which, 0
  %yi = insertelement <4 x ptr> poison, ptr %y, i64 0
  %sy = shufflevector <4 x ptr> %yi, <4 x ptr> poison, <4 x i32> zeroinitializer
  %sel = select i1 %c, <4 x ptr> %sy, <4 x ptr> %pv.next
  %lane = extractelement <4 x ptr> %sel, i32 1
  %t = load double, ptr %lane, align 8
  %tt = fmul double %t, %t
  %r = fadd double %acc.next, %tt
  ret double %r
}

; x[4] · x[0] · x[1] · x[2] · x[3], in order.
define double @reduce_fmul(ptr %x) {
  %v = load <4 x double>, ptr %x, align 8
  %p4 = getelementptr inbounds double, ptr %x, i64 4
  %start = load double, ptr %p4, align 8
  %r = call double @llvm.vector.reduce.fmul.v4f64(double %start, <4 x double> %v)
  ret double %r
}
