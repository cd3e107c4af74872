// RUN: %mlir-run -O0 %s %mlir-inputs/nested_loops.c %t | FileCheck %s
// RUN: %mlir-run -O2 %s %mlir-inputs/nested_loops.c %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Nested scf.for loops over two memrefs (both dup): a Gaussian kernel sum
// sum_i sum_j exp(-s (x_i - y_j)^2), with an inner loop whose bound is the outer index
// (a triangle) for a second term. Called through MLIR's C interface.
func.func @kernel(%x: memref<?xf64>, %y: memref<?xf64>, %s: f64) -> f64
    attributes {zyg.gradient = @dkernel, llvm.emit_c_interface} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %x, %c0 : memref<?xf64>
  %m = memref.dim %y, %c0 : memref<?xf64>
  %zero = arith.constant 0.0 : f64
  %sum = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (f64) {
    %xi = memref.load %x[%i] : memref<?xf64>
    %inner = scf.for %j = %c0 to %m step %c1 iter_args(%a = %acc) -> (f64) {
      %yj = memref.load %y[%j] : memref<?xf64>
      %d = arith.subf %xi, %yj : f64
      %dd = arith.mulf %d, %d : f64
      %sdd = arith.mulf %s, %dd : f64
      %neg = arith.negf %sdd : f64
      %e = math.exp %neg : f64
      %a2 = arith.addf %a, %e : f64
      scf.yield %a2 : f64
    }
    %tri = scf.for %j = %c0 to %i step %c1 iter_args(%b = %inner) -> (f64) {
      %xj = memref.load %x[%j] : memref<?xf64>
      %p = arith.mulf %xi, %xj : f64
      %sp = math.sin %p : f64
      %b2 = arith.addf %b, %sp : f64
      scf.yield %b2 : f64
    }
    scf.yield %tri : f64
  }
  return %sum : f64
}
