// RUN: %mlir-run -O0 %s %mlir-inputs/math_binary.c %t | FileCheck %s
// RUN: %mlir-run -O2 %s %mlir-inputs/math_binary.c %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Binary and ternary math ops: powf, atan2, copysign, fma, fpowi (an integer power),
// and arith's maximumf, minimumf, maxnumf, minnumf.
func.func @f_powf(%x: f64, %y: f64) -> f64 attributes {zyg.gradient = @d_powf} {
  %r = math.powf %x, %y : f64
  return %r : f64
}
func.func @f_atan2(%x: f64, %y: f64) -> f64 attributes {zyg.gradient = @d_atan2} {
  %r = math.atan2 %x, %y : f64
  return %r : f64
}
func.func @f_copysign(%x: f64, %y: f64) -> f64 attributes {zyg.gradient = @d_copysign} {
  %p = arith.mulf %x, %y : f64
  %r = math.copysign %p, %y : f64
  return %r : f64
}
func.func @f_fma(%x: f64, %y: f64) -> f64 attributes {zyg.gradient = @d_fma} {
  %s = math.sin %y : f64
  %r = math.fma %x, %s, %y : f64
  return %r : f64
}
func.func @f_fpowi(%x: f64, %y: f64) -> f64 attributes {zyg.gradient = @d_fpowi} {
  %c3 = arith.constant 3 : i32
  %p = arith.addf %x, %y : f64
  %r = math.fpowi %p, %c3 : f64, i32
  return %r : f64
}
func.func @f_max(%x: f64, %y: f64) -> f64 attributes {zyg.gradient = @d_max} {
  %a = arith.maximumf %x, %y : f64
  %b = arith.minimumf %x, %y : f64
  %c = arith.maxnumf %a, %x : f64
  %d = arith.minnumf %b, %y : f64
  %ab = arith.mulf %a, %b : f64
  %cd = arith.mulf %c, %d : f64
  %r = arith.addf %ab, %cd : f64
  %s = arith.mulf %r, %a : f64
  return %s : f64
}
