// The LLVM IR zyg makes of an MLIR module, at -O0 (the module's own functions as the
// lowering left them, the requests filled in).
// RUN: %zyg grad %s -O0 -S -o - | FileCheck %s
// RUN: %zyg grad %s -O0 -S -o - | FileCheck --check-prefix=NOREQ %s
//
// For this machine, with MLIR's locations as debug locations:
// CHECK: target datalayout = "{{.+}}"
// CHECK: target triple = "{{.+}}"
//
// A memref<?xf64> argument is its descriptor's fields: allocated, aligned, offset, size,
// stride.
// CHECK: define double @f(ptr %0, ptr %1, i64 %2, i64 %3, i64 %4, double %5) !dbg
// CHECK: define double @_mlir_ciface_f(ptr %0, double %1)
//
// The gradient takes the shadow memref after the memref; both pointers are dup (each with
// the shadow's pointer as its shadow), offset, size and stride const, x out:
// CHECK-LABEL: define double @df(ptr %0, ptr %1, i64 %2, i64 %3, i64 %4, ptr %5, ptr %6, i64 %7, i64 %8, i64 %9, double %10)
// CHECK-NEXT: entry:
// CHECK-NEXT: call { double } @f.zyg.grad.{{[a-z]+}}(ptr %0, ptr %5, ptr %1, ptr %6, i64 %2, i64 %3, i64 %4, double %10)
//
// MLIR's C interface to it: descriptors by pointer.
// CHECK-LABEL: define double @_mlir_ciface_df(ptr %0, ptr %1, double %2)
// CHECK: load { ptr, ptr, i64, [1 x i64], [1 x i64] }, ptr %0
// CHECK: load { ptr, ptr, i64, [1 x i64], [1 x i64] }, ptr %1
// CHECK: call double @df(
//
// No request is left.
// NOREQ-NOT: call {{.*}}@__zyg_autodiff
// CHECK: !DIFile(filename: "{{.*}}lowered_ir.mlir"

func.func @f(%a: memref<?xf64>, %x: f64) -> f64 attributes {zyg.gradient = @df, llvm.emit_c_interface} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %a, %c0 : memref<?xf64>
  %z = arith.constant 0.0 : f64
  %s = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (f64) {
    %v = memref.load %a[%i] : memref<?xf64>
    %p = arith.mulf %v, %x : f64
    %q = math.sin %p : f64
    %r = arith.addf %acc, %q : f64
    scf.yield %r : f64
  }
  return %s : f64
}
