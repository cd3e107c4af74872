// RUN: %mlir-run -O0 %s %mlir-inputs/call_request_memref.c %t | FileCheck %s
// RUN: %mlir-run -O2 %s %mlir-inputs/call_request_memref.c %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Gradient requests written in MLIR on functions of memrefs: a func.call of a declared
// `__zyg_autodiff_NAME` (or `__zyg_fwddiff_NAME`) whose first operand is the function
// (func.constant) and whose other operands are the function's arguments, each `dup` one
// followed by its shadow (forward mode: its tangent). `zyg.args` on the call gives the
// kinds, as a string or an array of strings; without it memrefs are dup, floats out (dup in
// forward mode) and index const. The results are the gradients of the `out` arguments.

// sum_i sin(w[i] * x) + w[i]^2 * x, over the first n elements.
func.func @wloss(%w: memref<?xf64>, %x: f64, %n: index) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f64
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (f64) {
    %wi = memref.load %w[%i] : memref<?xf64>
    %p = arith.mulf %wi, %x : f64
    %s = math.sin %p : f64
    %sq = arith.mulf %wi, %wi : f64
    %q = arith.mulf %sq, %x : f64
    %t = arith.addf %s, %q : f64
    %a = arith.addf %acc, %t : f64
    scf.yield %a : f64
  }
  return %r : f64
}

// The dot product of two memrefs of the same size.
func.func @dot(%a: memref<?xf64>, %b: memref<?xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %a, %c0 : memref<?xf64>
  %zero = arith.constant 0.0 : f64
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (f64) {
    %ai = memref.load %a[%i] : memref<?xf64>
    %bi = memref.load %b[%i] : memref<?xf64>
    %p = arith.mulf %ai, %bi : f64
    %t = arith.addf %acc, %p : f64
    scf.yield %t : f64
  }
  return %r : f64
}

func.func private @__zyg_autodiff_wloss((memref<?xf64>, f64, index) -> f64, memref<?xf64>, memref<?xf64>, f64, index) -> f64
func.func private @__zyg_autodiff_wloss_w((memref<?xf64>, f64, index) -> f64, memref<?xf64>, memref<?xf64>, f64, index)
func.func private @__zyg_autodiff_wloss_x((memref<?xf64>, f64, index) -> f64, memref<?xf64>, f64, index) -> f64
func.func private @__zyg_fwddiff_wloss((memref<?xf64>, f64, index) -> f64, memref<?xf64>, memref<?xf64>, f64, f64, index) -> f64
func.func private @__zyg_fwddiff_wloss_x((memref<?xf64>, f64, index) -> f64, memref<?xf64>, f64, f64, index) -> f64
func.func private @__zyg_autodiff_dot((memref<?xf64>, memref<?xf64>) -> f64, memref<?xf64>, memref<?xf64>, memref<?xf64>, memref<?xf64>)
func.func private @__zyg_autodiff_dot_a((memref<?xf64>, memref<?xf64>) -> f64, memref<?xf64>, memref<?xf64>, memref<?xf64>)

// Default kinds (dup, out, const): dw += d/dw, returns d/dx.
func.func @grad_wloss(%w: memref<?xf64>, %dw: memref<?xf64>, %x: f64, %n: index) -> f64 {
  %f = func.constant @wloss : (memref<?xf64>, f64, index) -> f64
  %dx = func.call @__zyg_autodiff_wloss(%f, %w, %dw, %x, %n)
      : ((memref<?xf64>, f64, index) -> f64, memref<?xf64>, memref<?xf64>, f64, index) -> f64
  return %dx : f64
}

// x const: no result.
func.func @grad_wloss_w(%w: memref<?xf64>, %dw: memref<?xf64>, %x: f64, %n: index) {
  %f = func.constant @wloss : (memref<?xf64>, f64, index) -> f64
  func.call @__zyg_autodiff_wloss_w(%f, %w, %dw, %x, %n) {zyg.args = "dup,const,const"}
      : ((memref<?xf64>, f64, index) -> f64, memref<?xf64>, memref<?xf64>, f64, index) -> ()
  return
}

// The memref const: no shadow follows it.
func.func @grad_wloss_x(%w: memref<?xf64>, %x: f64, %n: index) -> f64 {
  %f = func.constant @wloss : (memref<?xf64>, f64, index) -> f64
  %dx = func.call @__zyg_autodiff_wloss_x(%f, %w, %x, %n) {zyg.args = ["const", "out", "const"]}
      : ((memref<?xf64>, f64, index) -> f64, memref<?xf64>, f64, index) -> f64
  return %dx : f64
}

// Forward mode, default kinds: the memref and x each followed by their tangent.
func.func @tangent_wloss(%w: memref<?xf64>, %tw: memref<?xf64>, %x: f64, %tx: f64, %n: index) -> f64 {
  %f = func.constant @wloss : (memref<?xf64>, f64, index) -> f64
  %t = func.call @__zyg_fwddiff_wloss(%f, %w, %tw, %x, %tx, %n)
      : ((memref<?xf64>, f64, index) -> f64, memref<?xf64>, memref<?xf64>, f64, f64, index) -> f64
  return %t : f64
}

func.func @tangent_wloss_x(%w: memref<?xf64>, %x: f64, %tx: f64, %n: index) -> f64 {
  %f = func.constant @wloss : (memref<?xf64>, f64, index) -> f64
  %t = func.call @__zyg_fwddiff_wloss_x(%f, %w, %x, %tx, %n) {zyg.args = "const, dup, const"}
      : ((memref<?xf64>, f64, index) -> f64, memref<?xf64>, f64, f64, index) -> f64
  return %t : f64
}

// Requests inside a loop: dw += sum_k d wloss(w, xs[k], n)/dw, returns sum_k d/dx.
func.func @grad_wloss_sum(%w: memref<?xf64>, %dw: memref<?xf64>, %xs: memref<?xf64>, %n: index) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = memref.dim %xs, %c0 : memref<?xf64>
  %zero = arith.constant 0.0 : f64
  %f = func.constant @wloss : (memref<?xf64>, f64, index) -> f64
  %r = scf.for %k = %c0 to %m step %c1 iter_args(%acc = %zero) -> (f64) {
    %x = memref.load %xs[%k] : memref<?xf64>
    %dx = func.call @__zyg_autodiff_wloss(%f, %w, %dw, %x, %n)
        : ((memref<?xf64>, f64, index) -> f64, memref<?xf64>, memref<?xf64>, f64, index) -> f64
    %a = arith.addf %acc, %dx : f64
    scf.yield %a : f64
  }
  return %r : f64
}

func.func @grad_dot(%a: memref<?xf64>, %da: memref<?xf64>, %b: memref<?xf64>, %db: memref<?xf64>) {
  %f = func.constant @dot : (memref<?xf64>, memref<?xf64>) -> f64
  func.call @__zyg_autodiff_dot(%f, %a, %da, %b, %db)
      : ((memref<?xf64>, memref<?xf64>) -> f64, memref<?xf64>, memref<?xf64>, memref<?xf64>, memref<?xf64>) -> ()
  return
}

// Only a differentiated: b is const.
func.func @grad_dot_a(%a: memref<?xf64>, %da: memref<?xf64>, %b: memref<?xf64>) {
  %f = func.constant @dot : (memref<?xf64>, memref<?xf64>) -> f64
  func.call @__zyg_autodiff_dot_a(%f, %a, %da, %b) {zyg.args = ["dup", "const"]}
      : ((memref<?xf64>, memref<?xf64>) -> f64, memref<?xf64>, memref<?xf64>, memref<?xf64>) -> ()
  return
}

// `zyg.args` on a request without memrefs takes the same path: x*y^2 + sin(x).
func.func @poly(%x: f64, %y: f64) -> f64 {
  %xy = arith.mulf %x, %y : f64
  %xyy = arith.mulf %xy, %y : f64
  %s = math.sin %x : f64
  %r = arith.addf %xyy, %s : f64
  return %r : f64
}

func.func private @__zyg_autodiff_poly((f64, f64) -> f64, f64, f64) -> f64
func.func private @__zyg_fwddiff_poly((f64, f64) -> f64, f64, f64, f64) -> f64

func.func @grad_poly_y(%x: f64, %y: f64) -> f64 {
  %f = func.constant @poly : (f64, f64) -> f64
  %d = func.call @__zyg_autodiff_poly(%f, %x, %y) {zyg.args = "const,out"} : ((f64, f64) -> f64, f64, f64) -> f64
  return %d : f64
}

func.func @tangent_poly_x(%x: f64, %tx: f64, %y: f64) -> f64 {
  %f = func.constant @poly : (f64, f64) -> f64
  %t = func.call @__zyg_fwddiff_poly(%f, %x, %tx, %y) {zyg.args = ["dup", "const"]} : ((f64, f64) -> f64, f64, f64, f64) -> f64
  return %t : f64
}
