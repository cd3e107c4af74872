// RUN: %mlir-run -O0 %s %mlir-inputs/math_inverse_hyperbolic.c %t | FileCheck %s
// RUN: %mlir-run -O2 %s %mlir-inputs/math_inverse_hyperbolic.c %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// math.asinh, math.acosh and math.atanh (convert-math-to-libm makes them calls of asinh,
// acosh, atanh; f32 ones of asinhf...), applied to x * y, against their known derivatives
// 1/sqrt(p² + 1), 1/sqrt(p² - 1) and 1/(1 - p²) by the chain rule.
func.func @f_asinh(%x: f64, %y: f64) -> f64 attributes {zyg.gradient = @d_asinh} {
  %p = arith.mulf %x, %y : f64
  %r = math.asinh %p : f64
  return %r : f64
}
func.func @f_acosh(%x: f64, %y: f64) -> f64 attributes {zyg.gradient = @d_acosh} {
  %p = arith.mulf %x, %y : f64
  %r = math.acosh %p : f64
  return %r : f64
}
func.func @f_atanh(%x: f64, %y: f64) -> f64 attributes {zyg.gradient = @d_atanh} {
  %p = arith.mulf %x, %y : f64
  %r = math.atanh %p : f64
  return %r : f64
}
// In f32 (atanhf), between conversions, so the gradient returns in the C driver's f64 pair.
func.func @f_atanh32(%x: f64, %y: f64) -> f64 attributes {zyg.gradient = @d_atanh32} {
  %x32 = arith.truncf %x : f64 to f32
  %y32 = arith.truncf %y : f64 to f32
  %p = arith.mulf %x32, %y32 : f32
  %r32 = math.atanh %p : f32
  %r = arith.extf %r32 : f32 to f64
  return %r : f64
}
