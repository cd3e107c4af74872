; Code vectorised for the host (clang -O3 -ffast-math -march=x86-64-v3 writes
; `llvm.sin.v4f64`) compiled for the GPU: NVPTX has no vector sine, and its backend
; stopped the process ("LLVM ERROR: Cannot select: fsin"). zyg compile splits such calls
; into one per lane, which become libdevice's `__nv_sin`; ptxas accepts the result.
; REQUIRES: ptxas
; RUN: %zyg compile %s -o %t.ptx --target nvptx64 --gpu sm_70
; RUN: FileCheck %s < %t.ptx
; RUN: %ptxas -arch=sm_70 %t.ptx -o %t.cubin
; CHECK: .visible .func {{.*}}sines
; CHECK-NOT: llvm.sin

define void @sines(ptr %p) {
  %x = load <4 x double>, ptr %p, align 8
  %s = call fast <4 x double> @llvm.sin.v4f64(<4 x double> %x)
  %c = call <2 x float> @llvm.cos.v2f32(<2 x float> <float 1.0, float 2.0>)
  store <4 x double> %s, ptr %p, align 8
  %q = getelementptr i8, ptr %p, i64 32
  store <2 x float> %c, ptr %q, align 4
  ret void
}

declare <4 x double> @llvm.sin.v4f64(<4 x double>)
declare <2 x float> @llvm.cos.v2f32(<2 x float>)
