; A gather through a vector of pointers into differentiated memory (as clang emits with
; AVX-512 when its cost model likes it) is refused with a clear message rather than
; dropping the gradient.
; RUN: not %zyg grad %s -o %t.out.ll 2>&1 | FileCheck %s
; RUN: not test -e %t.out.ll
; CHECK: in function `gather2`{{.*}}: a vector of pointers into differentiated memory (for a gather or scatter
; CHECK-NEXT: getelementptr

define double @gather2(ptr %x, <2 x i64> %idx) {
  %p = getelementptr double, ptr %x, <2 x i64> %idx
  %v = call <2 x double> @llvm.masked.gather.v2f64.v2p0(<2 x ptr> align 8 %p, <2 x i1> splat (i1 true), <2 x double> poison)
  %m = fmul <2 x double> %v, %v
  %s = call double @llvm.vector.reduce.fadd.v2f64(double 0.0, <2 x double> %m)
  ret double %s
}

define double @request(ptr %x, ptr %dx, <2 x i64> %idx) {
  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @gather2, ptr %x, ptr %dx, <2 x i64> %idx)
  ret double %r
}

declare double @__enzyme_autodiff(ptr, ...)
declare <2 x double> @llvm.masked.gather.v2f64.v2p0(<2 x ptr>, <2 x i1>, <2 x double>)
declare double @llvm.vector.reduce.fadd.v2f64(double, <2 x double>)
