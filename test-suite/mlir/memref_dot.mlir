// RUN: %mlir-run -O0 %s %mlir-inputs/memref_dot.c %t | FileCheck %s
// RUN: %mlir-run -O2 %s %mlir-inputs/memref_dot.c %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// A scaled dot product of two memrefs, called with the lowering's own convention: each
// memref exploded into (allocated, aligned, offset, size, stride), the gradient taking each
// memref's shadow after it. Views with an offset and a stride (every other element of a
// larger array) are passed too.
func.func @dot(%a: memref<?xf64, strided<[?], offset: ?>>, %b: memref<?xf64, strided<[?], offset: ?>>, %s: f64) -> f64
    attributes {zyg.gradient = @ddot} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %a, %c0 : memref<?xf64, strided<[?], offset: ?>>
  %zero = arith.constant 0.0 : f64
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (f64) {
    %ai = memref.load %a[%i] : memref<?xf64, strided<[?], offset: ?>>
    %bi = memref.load %b[%i] : memref<?xf64, strided<[?], offset: ?>>
    %p = arith.mulf %ai, %bi : f64
    %t = arith.addf %acc, %p : f64
    scf.yield %t : f64
  }
  %rs = arith.mulf %r, %s : f64
  %sq = arith.mulf %rs, %r : f64
  return %sq : f64
}
