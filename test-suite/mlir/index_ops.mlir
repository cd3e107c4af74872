// RUN: %mlir-run -O0 %s %mlir-inputs/index_ops.c %t | FileCheck %s
// RUN: %mlir-run -O2 %s %mlir-inputs/index_ops.c %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// The index dialect computing addresses (index.mul, index.add, index.remu, index.casts),
// arith's integer ops and int-to-float conversions (no derivative flows through integers):
// a weighted sum over the elements i * 3 mod n of a memref, weighted by float(i).
func.func @gather(%a: memref<?xf64>, %x: f64) -> f64 attributes {zyg.gradient = @dgather} {
  %c0 = index.constant 0
  %c1 = index.constant 1
  %c3 = index.constant 3
  %n = memref.dim %a, %c0 : memref<?xf64>
  %zero = arith.constant 0.0 : f64
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (f64) {
    %i3 = index.mul %i, %c3
    %j = index.remu %i3, %n
    %v = memref.load %a[%j] : memref<?xf64>
    %ii = index.casts %i : index to i64
    %i1 = arith.addi %ii, %ii : i64
    %fi = arith.sitofp %i1 : i64 to f64
    %w = arith.mulf %fi, %x : f64
    %wv = arith.mulf %w, %v : f64
    %c = math.cos %wv : f64
    %t = arith.addf %acc, %c : f64
    scf.yield %t : f64
  }
  return %r : f64
}
