; Scalable vectors (`<vscale x N x T>`) stopped LLVM inside zyg grad and zyg compile
; (TypeSize assertions: "Cannot implicitly convert a scalable size to a fixed-width size").
; zyg refuses them before LLVM sees the module, naming the function and the instruction,
; whether the vector code is differentiated or only sits in the module: exit 1, no output.
; RUN: rm -rf %t && mkdir %t && cd %t && cp %s in.ll
; RUN: not %zyg grad in.ll -o out.ll 2>&1 | FileCheck %s
; RUN: not %zyg grad in.ll -o out.ll -O0 --fn scale 2>&1 | FileCheck %s
; RUN: not %zyg opt in.ll -o out.ll --passes=grad 2>&1 | FileCheck %s
; RUN: not %zyg compile in.ll -o out.o 2>&1 | FileCheck %s
; RUN: not test -e out.ll
; RUN: not test -e out.o
; RUN: cmp in.ll %s
; RUN: ls -A | FileCheck %s --check-prefix=FILES
; CHECK: zyg: error: in.ll: in function `square`: scalable vectors (`<vscale x 2 x double>`) are not supported: zyg differentiates and compiles fixed-width vectors only
; CHECK-NEXT: %x = load <vscale x 2 x double>, ptr %p
; CHECK-NOT: LLVM ERROR
; FILES-NOT: .zyg-

target triple = "x86_64-pc-linux-gnu"

define void @square(ptr %p) {
  %x = load <vscale x 2 x double>, ptr %p
  %y = fmul <vscale x 2 x double> %x, %x
  store <vscale x 2 x double> %y, ptr %p
  ret void
}

define double @scale(double %x) {
  %y = fmul double %x, 3.0
  ret double %y
}

declare double @__enzyme_autodiff(ptr, ...)

define double @dscale(double %x) {
  %d = call double (ptr, ...) @__enzyme_autodiff(ptr @scale, double %x)
  ret double %d
}
