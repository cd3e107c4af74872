; A gather of pointers from differentiated memory is refused with a clear message (zyg gives
; gathered pointers no shadows yet), rather than dropping the gradient: rows[idx[i]] of an
; array of row pointers, then a gather through them. (Gathers of floats work:
; test-suite/sound/gather_*.)
; RUN: not %zyg grad %s -o %t.out.ll 2>&1 | FileCheck %s
; RUN: not test -e %t.out.ll
; CHECK: in function `gather_rows`{{.*}}: this `call` makes a vector of pointers from pointers into differentiated memory, and zyg cannot give it a shadow
; CHECK-NEXT: llvm.masked.gather.v2p0

define double @gather_rows(ptr %rows, <2 x i64> %idx) {
  %p = getelementptr ptr, ptr %rows, <2 x i64> %idx
  %r = call <2 x ptr> @llvm.masked.gather.v2p0.v2p0(<2 x ptr> align 8 %p, <2 x i1> splat (i1 true), <2 x ptr> poison)
  %v = call <2 x double> @llvm.masked.gather.v2f64.v2p0(<2 x ptr> align 8 %r, <2 x i1> splat (i1 true), <2 x double> poison)
  %s = call double @llvm.vector.reduce.fadd.v2f64(double 0.0, <2 x double> %v)
  ret double %s
}

define double @request(ptr %rows, ptr %drows, <2 x i64> %idx) {
  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @gather_rows, ptr %rows, ptr %drows, <2 x i64> %idx)
  ret double %r
}

declare double @__enzyme_autodiff(ptr, ...)
declare <2 x ptr> @llvm.masked.gather.v2p0.v2p0(<2 x ptr>, <2 x i1>, <2 x ptr>)
declare <2 x double> @llvm.masked.gather.v2f64.v2p0(<2 x ptr>, <2 x i1>, <2 x double>)
declare double @llvm.vector.reduce.fadd.v2f64(double, <2 x double>)
