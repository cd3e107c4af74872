// RUN: %mlir-run -O0 %s %mlir-inputs/subview_strided.c %t | FileCheck %s
// RUN: %mlir-run -O2 %s %mlir-inputs/subview_strided.c %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// memref.subview (lowered by expand-strided-metadata and lower-affine): the sum over each
// row of a matrix of a weighted inner window, and the diagonal through a strided view,
// all within a 2-D memref whose gradient lands in the matching places of its shadow.
func.func @windows(%a: memref<?x?xf64>, %w: memref<3xf64>) -> f64 attributes {zyg.gradient = @dwindows} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %rows = memref.dim %a, %c0 : memref<?x?xf64>
  %zero = arith.constant 0.0 : f64
  %r = scf.for %i = %c0 to %rows step %c1 iter_args(%acc = %zero) -> (f64) {
    %row = memref.subview %a[%i, 1] [1, 3] [1, 1] : memref<?x?xf64> to memref<3xf64, strided<[1], offset: ?>>
    %s = scf.for %j = %c0 to %c3 step %c1 iter_args(%t = %acc) -> (f64) {
      %v = memref.load %row[%j] : memref<3xf64, strided<[1], offset: ?>>
      %wj = memref.load %w[%j] : memref<3xf64>
      %p = arith.mulf %v, %wj : f64
      %e = math.sin %p : f64
      %t2 = arith.addf %t, %e : f64
      scf.yield %t2 : f64
    }
    scf.yield %s : f64
  }
  return %r : f64
}

// The diagonal of a square matrix as a strided 1-D view: product of its entries.
func.func @diag_product(%a: memref<4x4xf64>) -> f64 attributes {zyg.gradient = @ddiag_product} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %flat = memref.collapse_shape %a [[0, 1]] : memref<4x4xf64> into memref<16xf64>
  %diag = memref.subview %flat[0] [4] [5] : memref<16xf64> to memref<4xf64, strided<[5]>>
  %one = arith.constant 1.0 : f64
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%p = %one) -> (f64) {
    %d = memref.load %diag[%i] : memref<4xf64, strided<[5]>>
    %p2 = arith.mulf %p, %d : f64
    scf.yield %p2 : f64
  }
  return %r : f64
}
