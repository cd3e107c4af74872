// RUN: %mlir-run -O0 %s %mlir-inputs/matmul.c %t | FileCheck %s
// RUN: %mlir-run -O2 %s %mlir-inputs/matmul.c %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// A small matmul over 2-D memrefs: C = A B written to an output memref (whose shadow seeds
// the gradient), and a loss ||A B||^2 computed through a temporary C. A and B are dup;
// everything goes through MLIR's C interface (descriptors by pointer).
func.func @matmul(%a: memref<?x?xf64>, %b: memref<?x?xf64>, %c: memref<?x?xf64>)
    attributes {zyg.gradient = @dmatmul, llvm.emit_c_interface} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = memref.dim %a, %c0 : memref<?x?xf64>
  %k = memref.dim %a, %c1 : memref<?x?xf64>
  %n = memref.dim %b, %c1 : memref<?x?xf64>
  %zero = arith.constant 0.0 : f64
  scf.for %i = %c0 to %m step %c1 {
    scf.for %j = %c0 to %n step %c1 {
      %sum = scf.for %l = %c0 to %k step %c1 iter_args(%acc = %zero) -> (f64) {
        %ail = memref.load %a[%i, %l] : memref<?x?xf64>
        %blj = memref.load %b[%l, %j] : memref<?x?xf64>
        %p = arith.mulf %ail, %blj : f64
        %s = arith.addf %acc, %p : f64
        scf.yield %s : f64
      }
      memref.store %sum, %c[%i, %j] : memref<?x?xf64>
    }
  }
  return
}

func.func @frobenius_of_product(%a: memref<?x?xf64>, %b: memref<?x?xf64>) -> f64
    attributes {zyg.gradient = @dfrobenius_of_product, llvm.emit_c_interface} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = memref.dim %a, %c0 : memref<?x?xf64>
  %n = memref.dim %b, %c1 : memref<?x?xf64>
  %c = memref.alloc(%m, %n) : memref<?x?xf64>
  func.call @matmul(%a, %b, %c) : (memref<?x?xf64>, memref<?x?xf64>, memref<?x?xf64>) -> ()
  %zero = arith.constant 0.0 : f64
  %r = scf.for %i = %c0 to %m step %c1 iter_args(%acc = %zero) -> (f64) {
    %row = scf.for %j = %c0 to %n step %c1 iter_args(%a2 = %acc) -> (f64) {
      %v = memref.load %c[%i, %j] : memref<?x?xf64>
      %sq = arith.mulf %v, %v : f64
      %s = arith.addf %a2, %sq : f64
      scf.yield %s : f64
    }
    scf.yield %row : f64
  }
  memref.dealloc %c : memref<?x?xf64>
  return %r : f64
}
