// RUN: %mlir-run -O0 %s %mlir-inputs/f32_ops.c %t | FileCheck %s
// RUN: %mlir-run -O2 %s %mlir-inputs/f32_ops.c %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// f32 throughout: a logistic regression's loss over a memref<?xf32> of features with two
// f32 `out` scalars (slope and intercept), extf/truncf around an f64 accumulation. Called
// through MLIR's C interface, which returns several results through a pointer: the f32
// pair { float, float } is not returned as C would return it.
func.func @logistic(%xs: memref<?xf32>, %ys: memref<?xf32>, %w: f32, %b: f32) -> f32
    attributes {zyg.gradient = @dlogistic, zyg.args = ["const", "const", "out", "out"], llvm.emit_c_interface} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %xs, %c0 : memref<?xf32>
  %zero = arith.constant 0.0 : f64
  %one = arith.constant 1.0 : f32
  %sum = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (f64) {
    %x = memref.load %xs[%i] : memref<?xf32>
    %y = memref.load %ys[%i] : memref<?xf32>
    %wx = arith.mulf %w, %x : f32
    %z = arith.addf %wx, %b : f32
    %nz = arith.negf %z : f32
    %e = math.exp %nz : f32
    %den = arith.addf %one, %e : f32
    %p = arith.divf %one, %den : f32
    %d = arith.subf %p, %y : f32
    %sq = arith.mulf %d, %d : f32
    %sq64 = arith.extf %sq : f32 to f64
    %t = arith.addf %acc, %sq64 : f64
    scf.yield %t : f64
  }
  %r = arith.truncf %sum : f64 to f32
  return %r : f32
}
