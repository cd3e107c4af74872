// RUN: %mlir-run -O0 %s %mlir-inputs/call_request_helpers.c %t | FileCheck %s
// RUN: %mlir-run -O2 %s %mlir-inputs/call_request_helpers.c %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// A func.call request in MLIR for a function that calls other functions taking memrefs:
// a helper writing k * x into a `dup` memref y (whose shadow seeds y's values as outputs),
// a helper reading a memref the function allocated, and a helper called on two views.

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

// sum_i a[i]^2 + sin(a[i])
func.func private @sumsq(%a: memref<?xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %a, %c0 : memref<?xf64>
  %zero = arith.constant 0.0 : f64
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (f64) {
    %v = memref.load %a[%i] : memref<?xf64>
    %sq = arith.mulf %v, %v : f64
    %s = math.sin %v : f64
    %t = arith.addf %sq, %s : f64
    %u = arith.addf %acc, %t : f64
    scf.yield %u : f64
  }
  return %r : f64
}

// y = k x (through the helper); returns sumsq(y) + k sumsq(x) + sumsq(t), t = x * x[0]
// in a buffer of its own.
func.func @model(%x: memref<?xf64>, %y: memref<?xf64>, %k: f64) -> f64 {
  %c0 = arith.constant 0 : index
  func.call @scale_into(%x, %y, %k) : (memref<?xf64>, memref<?xf64>, f64) -> ()
  %a = func.call @sumsq(%y) : (memref<?xf64>) -> f64
  %b = func.call @sumsq(%x) : (memref<?xf64>) -> f64
  %kb = arith.mulf %k, %b : f64
  %n = memref.dim %x, %c0 : memref<?xf64>
  %t = memref.alloc(%n) : memref<?xf64>
  %x0 = memref.load %x[%c0] : memref<?xf64>
  func.call @scale_into(%x, %t, %x0) : (memref<?xf64>, memref<?xf64>, f64) -> ()
  %c = func.call @sumsq(%t) : (memref<?xf64>) -> f64
  memref.dealloc %t : memref<?xf64>
  %ab = arith.addf %a, %kb : f64
  %r = arith.addf %ab, %c : f64
  return %r : f64
}

func.func private @__zyg_autodiff_model((memref<?xf64>, memref<?xf64>, f64) -> f64,
    memref<?xf64>, memref<?xf64>, memref<?xf64>, memref<?xf64>, f64) -> f64
func.func private @__zyg_fwddiff_model((memref<?xf64>, memref<?xf64>, f64) -> f64,
    memref<?xf64>, memref<?xf64>, memref<?xf64>, memref<?xf64>, f64, f64) -> f64

func.func @grad_model(%x: memref<?xf64>, %dx: memref<?xf64>, %y: memref<?xf64>, %dy: memref<?xf64>, %k: f64) -> f64 {
  %f = func.constant @model : (memref<?xf64>, memref<?xf64>, f64) -> f64
  %dk = func.call @__zyg_autodiff_model(%f, %x, %dx, %y, %dy, %k) {zyg.args = ["dup", "dup", "out"]}
      : ((memref<?xf64>, memref<?xf64>, f64) -> f64, memref<?xf64>, memref<?xf64>, memref<?xf64>, memref<?xf64>, f64) -> f64
  return %dk : f64
}

func.func @tangent_model(%x: memref<?xf64>, %tx: memref<?xf64>, %y: memref<?xf64>, %ty: memref<?xf64>, %k: f64, %tk: f64) -> f64 {
  %f = func.constant @model : (memref<?xf64>, memref<?xf64>, f64) -> f64
  %t = func.call @__zyg_fwddiff_model(%f, %x, %tx, %y, %ty, %k, %tk)
      : ((memref<?xf64>, memref<?xf64>, f64) -> f64, memref<?xf64>, memref<?xf64>, memref<?xf64>, memref<?xf64>, f64, f64) -> f64
  return %t : f64
}

// The helper itself, which returns nothing: its outputs are dst's values, seeded by dst's
// shadow (reverse mode), or given their tangents in dst's tangent (forward mode).
func.func private @__zyg_autodiff_scale((memref<?xf64>, memref<?xf64>, f64) -> (),
    memref<?xf64>, memref<?xf64>, memref<?xf64>, memref<?xf64>, f64) -> f64
func.func private @__zyg_fwddiff_scale((memref<?xf64>, memref<?xf64>, f64) -> (),
    memref<?xf64>, memref<?xf64>, memref<?xf64>, memref<?xf64>, f64, f64)

func.func @grad_scale(%x: memref<?xf64>, %dx: memref<?xf64>, %y: memref<?xf64>, %dy: memref<?xf64>, %k: f64) -> f64 {
  %f = func.constant @scale_into : (memref<?xf64>, memref<?xf64>, f64) -> ()
  %dk = func.call @__zyg_autodiff_scale(%f, %x, %dx, %y, %dy, %k)
      : ((memref<?xf64>, memref<?xf64>, f64) -> (), memref<?xf64>, memref<?xf64>, memref<?xf64>, memref<?xf64>, f64) -> f64
  return %dk : f64
}

func.func @tangent_scale(%x: memref<?xf64>, %tx: memref<?xf64>, %y: memref<?xf64>, %ty: memref<?xf64>, %k: f64, %tk: f64) {
  %f = func.constant @scale_into : (memref<?xf64>, memref<?xf64>, f64) -> ()
  func.call @__zyg_fwddiff_scale(%f, %x, %tx, %y, %ty, %k, %tk)
      : ((memref<?xf64>, memref<?xf64>, f64) -> (), memref<?xf64>, memref<?xf64>, memref<?xf64>, memref<?xf64>, f64, f64) -> ()
  return
}
