// `--fn NAME` on MLIR input exports NAME's gradient from the lowered function, as for
// LLVM IR: its parameters are the lowering's (a memref's allocated and aligned pointers
// each followed by a shadow, then its offset, sizes and strides), and --header writes the
// C prototype.
// RUN: %zyg grad %s --fn energy --header %t.h -o %t.ll
// RUN: FileCheck --check-prefix=HEADER %s < %t.h
// RUN: %clang %t.ll %mlir-inputs/fn_export.c -include %t.h -I %include -I %mlir-inputs -lm -o %t.exe
// RUN: %t.exe | FileCheck %s
// RUN: %zyg grad %s -O0 --fn energy --args dup,dup,const,const,const,const --name denergy_dp -o %t.O0.ll
// RUN: %clang %t.O0.ll %mlir-inputs/fn_export.c -DONLY_POINTS -I %include -I %mlir-inputs -lm -o %t.O0.exe
// RUN: %t.O0.exe | FileCheck %s
// HEADER: double energy_grad(void *arg0, void *d_arg0, void *arg1, void *d_arg1, int64_t arg2, int64_t arg3, int64_t arg4, double arg5);
// CHECK-NOT: FAIL
// CHECK: ALL OK

// A chain of springs of stiffness k between consecutive points.
func.func @energy(%p: memref<?xf64>, %k: f64) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %p, %c0 : memref<?xf64>
  %m = arith.subi %n, %c1 : index
  %z = arith.constant 0.0 : f64
  %half = arith.constant 0.5 : f64
  %rest = arith.constant 1.0 : f64
  %e = scf.for %i = %c0 to %m step %c1 iter_args(%acc = %z) -> (f64) {
    %j = arith.addi %i, %c1 : index
    %a = memref.load %p[%i] : memref<?xf64>
    %b = memref.load %p[%j] : memref<?xf64>
    %d = arith.subf %b, %a : f64
    %s = arith.subf %d, %rest : f64
    %s2 = arith.mulf %s, %s : f64
    %ks = arith.mulf %k, %s2 : f64
    %h = arith.mulf %half, %ks : f64
    %t = arith.addf %acc, %h : f64
    scf.yield %t : f64
  }
  return %e : f64
}
