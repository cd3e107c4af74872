// RUN: %mlir-run -O0 %s %mlir-inputs/mlp.c %t | FileCheck %s
// RUN: %mlir-run -O2 %s %mlir-inputs/mlp.c %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// A one-hidden-layer perceptron's squared error, y = w2 . tanh(W1 x + b1), loss (y - t)^2,
// with zyg.args choosing the kinds: the weights are dup, the input x is a const memref
// (no shadow), the target t a const float. A helper function computes each hidden unit.
func.func private @unit(%w: memref<?x?xf64>, %b: memref<?xf64>, %x: memref<?xf64>, %j: index) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %x, %c0 : memref<?xf64>
  %bj = memref.load %b[%j] : memref<?xf64>
  %z = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %bj) -> (f64) {
    %wji = memref.load %w[%j, %i] : memref<?x?xf64>
    %xi = memref.load %x[%i] : memref<?xf64>
    %p = arith.mulf %wji, %xi : f64
    %s = arith.addf %acc, %p : f64
    scf.yield %s : f64
  }
  %h = math.tanh %z : f64
  return %h : f64
}

func.func @loss(%w1: memref<?x?xf64>, %b1: memref<?xf64>, %w2: memref<?xf64>, %x: memref<?xf64>, %t: f64) -> f64
    attributes {zyg.gradient = @dloss, zyg.args = ["dup", "dup", "dup", "const", "const"]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %hidden = memref.dim %w2, %c0 : memref<?xf64>
  %zero = arith.constant 0.0 : f64
  %y = scf.for %j = %c0 to %hidden step %c1 iter_args(%acc = %zero) -> (f64) {
    %h = func.call @unit(%w1, %b1, %x, %j) : (memref<?x?xf64>, memref<?xf64>, memref<?xf64>, index) -> f64
    %w2j = memref.load %w2[%j] : memref<?xf64>
    %p = arith.mulf %w2j, %h : f64
    %s = arith.addf %acc, %p : f64
    scf.yield %s : f64
  }
  %d = arith.subf %y, %t : f64
  %l = arith.mulf %d, %d : f64
  return %l : f64
}
