; A scatter of pointers into differentiated memory is refused with a clear message (their
; shadows would not be stored beside them), rather than losing the derivatives that later
; flow through those pointers.
; RUN: not %zyg grad %s --fn scatter_rows -o %t.out.ll 2>&1 | FileCheck %s
; RUN: not test -e %t.out.ll
; CHECK: in function `scatter_rows`{{.*}}: this stores pointers into differentiated memory through a masked store or scatter, and zyg cannot store their shadows
; CHECK-NEXT: llvm.masked.scatter.v2p0

define void @scatter_rows(ptr %rows, ptr %a, ptr %b) {
  %pa = insertelement <2 x ptr> poison, ptr %a, i64 0
  %pab = insertelement <2 x ptr> %pa, ptr %b, i64 1
  %dst = getelementptr ptr, ptr %rows, <2 x i64> <i64 0, i64 1>
  call void @llvm.masked.scatter.v2p0.v2p0(<2 x ptr> %pab, <2 x ptr> align 8 %dst, <2 x i1> splat (i1 true))
  ret void
}

declare void @llvm.masked.scatter.v2p0.v2p0(<2 x ptr>, <2 x ptr>, <2 x i1>)
