// RUN: %mlir-run -O0 %s %mlir-inputs/call_helpers.c %t | FileCheck %s
// RUN: %mlir-run -O2 %s %mlir-inputs/call_helpers.c %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// func.call to functions of the module: a private helper called twice with different
// active arguments, a recursive function (exponentiation by squaring, x^n), and a helper
// taking a memref and writing into another. Three `out` results come back through the
// C interface's result pointer.
func.func private @smoothstep(%t: f64, %k: f64) -> f64 {
  %tt = arith.mulf %t, %t : f64
  %kt = arith.mulf %k, %t : f64
  %three = arith.constant 3.0 : f64
  %a = arith.subf %three, %kt : f64
  %r = arith.mulf %tt, %a : f64
  return %r : f64
}

func.func private @ipow(%x: f64, %n: i64) -> f64 {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %c2 = arith.constant 2 : i64
  %done = arith.cmpi eq, %n, %c0 : i64
  %r = scf.if %done -> (f64) {
    %one = arith.constant 1.0 : f64
    scf.yield %one : f64
  } else {
    %h = arith.divui %n, %c2 : i64
    %half = func.call @ipow(%x, %h) : (f64, i64) -> f64
    %sq = arith.mulf %half, %half : f64
    %odd = arith.remui %n, %c2 : i64
    %isodd = arith.cmpi eq, %odd, %c1 : i64
    %v = scf.if %isodd -> (f64) {
      %m = arith.mulf %sq, %x : f64
      scf.yield %m : f64
    } else {
      scf.yield %sq : f64
    }
    scf.yield %v : f64
  }
  return %r : f64
}

func.func private @scale_into(%src: memref<?xf64>, %dst: memref<?xf64>, %s: f64) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %src, %c0 : memref<?xf64>
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %src[%i] : memref<?xf64>
    %w = arith.mulf %v, %s : f64
    memref.store %w, %dst[%i] : memref<?xf64>
  }
  return
}

func.func @model(%x: f64, %y: f64, %z: f64, %n: i64) -> f64
    attributes {zyg.gradient = @dmodel, llvm.emit_c_interface} {
  %a = func.call @smoothstep(%x, %y) : (f64, f64) -> f64
  %b = func.call @smoothstep(%y, %z) : (f64, f64) -> f64
  %p = func.call @ipow(%z, %n) : (f64, i64) -> f64
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %src = memref.alloca() : memref<2xf64>
  %dst = memref.alloca() : memref<2xf64>
  memref.store %a, %src[%c0] : memref<2xf64>
  memref.store %b, %src[%c1] : memref<2xf64>
  %srcd = memref.cast %src : memref<2xf64> to memref<?xf64>
  %dstd = memref.cast %dst : memref<2xf64> to memref<?xf64>
  func.call @scale_into(%srcd, %dstd, %p) : (memref<?xf64>, memref<?xf64>, f64) -> ()
  %u = memref.load %dst[%c0] : memref<2xf64>
  %v = memref.load %dst[%c1] : memref<2xf64>
  %uv = arith.mulf %u, %v : f64
  %r = arith.addf %uv, %p : f64
  return %r : f64
}
