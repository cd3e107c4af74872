// RUN: %mlir-run -O0 %s %mlir-inputs/math_unary.c %t | FileCheck %s
// RUN: %mlir-run -O2 %s %mlir-inputs/math_unary.c %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Every unary math op zyg lowers, one function and one gradient each: the ops become
// LLVM intrinsics (convert-math-to-llvm) or libm calls (convert-math-to-libm), and each
// gradient is checked against central differences. Each op is applied to x * y so that
// the chain rule runs through it.
func.func @f_sin(%x: f64, %y: f64) -> f64 attributes {zyg.gradient = @d_sin} {
  %p = arith.mulf %x, %y : f64
  %r = math.sin %p : f64
  return %r : f64
}
func.func @f_cos(%x: f64, %y: f64) -> f64 attributes {zyg.gradient = @d_cos} {
  %p = arith.mulf %x, %y : f64
  %r = math.cos %p : f64
  return %r : f64
}
func.func @f_tan(%x: f64, %y: f64) -> f64 attributes {zyg.gradient = @d_tan} {
  %p = arith.mulf %x, %y : f64
  %r = math.tan %p : f64
  return %r : f64
}
func.func @f_exp(%x: f64, %y: f64) -> f64 attributes {zyg.gradient = @d_exp} {
  %p = arith.mulf %x, %y : f64
  %r = math.exp %p : f64
  return %r : f64
}
func.func @f_exp2(%x: f64, %y: f64) -> f64 attributes {zyg.gradient = @d_exp2} {
  %p = arith.mulf %x, %y : f64
  %r = math.exp2 %p : f64
  return %r : f64
}
func.func @f_expm1(%x: f64, %y: f64) -> f64 attributes {zyg.gradient = @d_expm1} {
  %p = arith.mulf %x, %y : f64
  %r = math.expm1 %p : f64
  return %r : f64
}
func.func @f_log(%x: f64, %y: f64) -> f64 attributes {zyg.gradient = @d_log} {
  %p = arith.mulf %x, %y : f64
  %r = math.log %p : f64
  return %r : f64
}
func.func @f_log2(%x: f64, %y: f64) -> f64 attributes {zyg.gradient = @d_log2} {
  %p = arith.mulf %x, %y : f64
  %r = math.log2 %p : f64
  return %r : f64
}
func.func @f_log10(%x: f64, %y: f64) -> f64 attributes {zyg.gradient = @d_log10} {
  %p = arith.mulf %x, %y : f64
  %r = math.log10 %p : f64
  return %r : f64
}
func.func @f_log1p(%x: f64, %y: f64) -> f64 attributes {zyg.gradient = @d_log1p} {
  %p = arith.mulf %x, %y : f64
  %r = math.log1p %p : f64
  return %r : f64
}
func.func @f_sqrt(%x: f64, %y: f64) -> f64 attributes {zyg.gradient = @d_sqrt} {
  %p = arith.mulf %x, %y : f64
  %r = math.sqrt %p : f64
  return %r : f64
}
func.func @f_rsqrt(%x: f64, %y: f64) -> f64 attributes {zyg.gradient = @d_rsqrt} {
  %p = arith.mulf %x, %y : f64
  %r = math.rsqrt %p : f64
  return %r : f64
}
func.func @f_cbrt(%x: f64, %y: f64) -> f64 attributes {zyg.gradient = @d_cbrt} {
  %p = arith.mulf %x, %y : f64
  %r = math.cbrt %p : f64
  return %r : f64
}
func.func @f_tanh(%x: f64, %y: f64) -> f64 attributes {zyg.gradient = @d_tanh} {
  %p = arith.mulf %x, %y : f64
  %r = math.tanh %p : f64
  return %r : f64
}
func.func @f_sinh(%x: f64, %y: f64) -> f64 attributes {zyg.gradient = @d_sinh} {
  %p = arith.mulf %x, %y : f64
  %r = math.sinh %p : f64
  return %r : f64
}
func.func @f_cosh(%x: f64, %y: f64) -> f64 attributes {zyg.gradient = @d_cosh} {
  %p = arith.mulf %x, %y : f64
  %r = math.cosh %p : f64
  return %r : f64
}
func.func @f_asin(%x: f64, %y: f64) -> f64 attributes {zyg.gradient = @d_asin} {
  %p = arith.mulf %x, %y : f64
  %r = math.asin %p : f64
  return %r : f64
}
func.func @f_acos(%x: f64, %y: f64) -> f64 attributes {zyg.gradient = @d_acos} {
  %p = arith.mulf %x, %y : f64
  %r = math.acos %p : f64
  return %r : f64
}
func.func @f_atan(%x: f64, %y: f64) -> f64 attributes {zyg.gradient = @d_atan} {
  %p = arith.mulf %x, %y : f64
  %r = math.atan %p : f64
  return %r : f64
}
func.func @f_erf(%x: f64, %y: f64) -> f64 attributes {zyg.gradient = @d_erf} {
  %p = arith.mulf %x, %y : f64
  %r = math.erf %p : f64
  return %r : f64
}
func.func @f_erfc(%x: f64, %y: f64) -> f64 attributes {zyg.gradient = @d_erfc} {
  %p = arith.mulf %x, %y : f64
  %r = math.erfc %p : f64
  return %r : f64
}
func.func @f_absf(%x: f64, %y: f64) -> f64 attributes {zyg.gradient = @d_absf} {
  %p = arith.mulf %x, %y : f64
  %r = math.absf %p : f64
  return %r : f64
}
