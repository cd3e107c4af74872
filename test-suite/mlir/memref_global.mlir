// RUN: %mlir-run -O0 %s %mlir-inputs/memref_global.c %t | FileCheck %s
// RUN: %mlir-run -O2 %s %mlir-inputs/memref_global.c %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// memref.global: constant polynomial coefficients (a lookup table, inactive) read with
// memref.get_global, evaluated by Horner's rule in an affine.for with affine.load; and a
// mutable global scratch buffer that the function writes and reads back.
memref.global "private" constant @coeffs : memref<5xf64> = dense<[0.5, -1.25, 2.0, 0.75, -0.3]>
memref.global "private" @scratch : memref<5xf64> = uninitialized

func.func @horner(%x: f64) -> f64 attributes {zyg.gradient = @dhorner} {
  %c = memref.get_global @coeffs : memref<5xf64>
  %s = memref.get_global @scratch : memref<5xf64>
  %zero = arith.constant 0.0 : f64
  %r = affine.for %i = 0 to 5 iter_args(%acc = %zero) -> (f64) {
    %k = affine.load %c[%i] : memref<5xf64>
    %ax = arith.mulf %acc, %x : f64
    %n = arith.addf %ax, %k : f64
    affine.store %n, %s[%i] : memref<5xf64>
    affine.yield %n : f64
  }
  %sum = affine.for %i = 1 to 4 iter_args(%acc = %r) -> (f64) {
    %v = affine.load %s[%i] : memref<5xf64>
    %p = arith.mulf %v, %acc : f64
    affine.yield %p : f64
  }
  return %sum : f64
}
