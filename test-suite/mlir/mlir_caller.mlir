// RUN: %mlir-run -O0 %s %mlir-inputs/mlir_caller.c %t | FileCheck %s
// RUN: %mlir-run -O2 %s %mlir-inputs/mlir_caller.c %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// MLIR code calling the gradient: the module declares @drosen with the gradient's
// signature (each dup memref followed by its shadow) and gradient descent in MLIR calls it,
// zeroing the shadow before each call, as a user of zyg.gradient would write it.
func.func @rosen(%x: memref<?xf64>) -> f64 attributes {zyg.gradient = @drosen} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %x, %c0 : memref<?xf64>
  %last = arith.subi %n, %c1 : index
  %zero = arith.constant 0.0 : f64
  %one = arith.constant 1.0 : f64
  %hundred = arith.constant 100.0 : f64
  %r = scf.for %i = %c0 to %last step %c1 iter_args(%acc = %zero) -> (f64) {
    %ip1 = arith.addi %i, %c1 : index
    %xi = memref.load %x[%i] : memref<?xf64>
    %xn = memref.load %x[%ip1] : memref<?xf64>
    %xi2 = arith.mulf %xi, %xi : f64
    %d = arith.subf %xn, %xi2 : f64
    %d2 = arith.mulf %d, %d : f64
    %t1 = arith.mulf %hundred, %d2 : f64
    %e = arith.subf %one, %xi : f64
    %e2 = arith.mulf %e, %e : f64
    %s = arith.addf %t1, %e2 : f64
    %a = arith.addf %acc, %s : f64
    scf.yield %a : f64
  }
  return %r : f64
}

func.func private @drosen(memref<?xf64>, memref<?xf64>)

// One gradient into %g (zeroed first), as C would get it.
func.func @gradient(%x: memref<?xf64>, %g: memref<?xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %x, %c0 : memref<?xf64>
  %zero = arith.constant 0.0 : f64
  scf.for %i = %c0 to %n step %c1 {
    memref.store %zero, %g[%i] : memref<?xf64>
  }
  func.call @drosen(%x, %g) : (memref<?xf64>, memref<?xf64>) -> ()
  return
}

// `steps` steps of gradient descent with rate `lr`, in place; returns the final value.
func.func @descend(%x: memref<?xf64>, %steps: index, %lr: f64) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %x, %c0 : memref<?xf64>
  %g = memref.alloc(%n) : memref<?xf64>
  scf.for %k = %c0 to %steps step %c1 {
    func.call @gradient(%x, %g) : (memref<?xf64>, memref<?xf64>) -> ()
    scf.for %i = %c0 to %n step %c1 {
      %xi = memref.load %x[%i] : memref<?xf64>
      %gi = memref.load %g[%i] : memref<?xf64>
      %step = arith.mulf %lr, %gi : f64
      %nx = arith.subf %xi, %step : f64
      memref.store %nx, %x[%i] : memref<?xf64>
    }
  }
  memref.dealloc %g : memref<?xf64>
  %r = func.call @rosen(%x) : (memref<?xf64>) -> f64
  return %r : f64
}
