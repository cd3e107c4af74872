// RUN: %mlir-run -O0 %s %mlir-inputs/scalar_arith.c %t | FileCheck %s
// RUN: %mlir-run -O2 %s %mlir-inputs/scalar_arith.c %t | FileCheck %s
// RUN: %mlir-run -O3 %s %mlir-inputs/scalar_arith.c %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// arith on two f64 arguments. Both are `out`: the gradient returns two results, which
// lower to a struct { f64, f64 } (C returns struct { double, double } the same way).
func.func @f(%x: f64, %y: f64) -> f64 attributes {zyg.gradient = @df} {
  %a = arith.mulf %x, %y : f64
  %b = arith.subf %a, %y : f64
  %c = arith.divf %b, %x : f64
  %d = arith.negf %c : f64
  %e = arith.addf %d, %a : f64
  %sq = arith.mulf %e, %e : f64
  %one = arith.constant 1.0 : f64
  %den = arith.addf %sq, %one : f64
  %r = arith.divf %e, %den : f64
  %k = arith.constant 3.0 : f64
  %m = arith.remf %x, %k : f64
  %out = arith.addf %r, %m : f64
  return %out : f64
}
