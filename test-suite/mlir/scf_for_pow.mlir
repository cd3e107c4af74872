// RUN: %mlir-run -O0 %s %mlir-inputs/scf_for_pow.c %t | FileCheck %s
// RUN: %mlir-run -O2 %s %mlir-inputs/scf_for_pow.c %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// x^n by an scf.for of multiplications with an iter_arg; n (index) is const by default.
func.func @power(%x: f64, %n: index) -> f64 attributes {zyg.gradient = @dpower} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f64
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %one) -> (f64) {
    %m = arith.mulf %acc, %x : f64
    scf.yield %m : f64
  }
  return %r : f64
}
