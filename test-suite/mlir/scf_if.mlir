// RUN: %mlir-run -O0 %s %mlir-inputs/scf_if.c %t | FileCheck %s
// RUN: %mlir-run -O2 %s %mlir-inputs/scf_if.c %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// scf.if with results, nested: a piecewise function of x and y whose branch depends on
// both; scf.if without results writing a memref.
func.func @f(%x: f64, %y: f64) -> f64 attributes {zyg.gradient = @df} {
  %zero = arith.constant 0.0 : f64
  %pos = arith.cmpf ogt, %x, %zero : f64
  %r = scf.if %pos -> (f64) {
    %big = arith.cmpf ogt, %y, %x : f64
    %v = scf.if %big -> (f64) {
      %p = arith.mulf %x, %y : f64
      %s = math.sin %p : f64
      scf.yield %s : f64
    } else {
      %q = arith.mulf %x, %x : f64
      %t = arith.mulf %q, %y : f64
      scf.yield %t : f64
    }
    scf.yield %v : f64
  } else {
    %e = math.exp %x : f64
    %w = arith.mulf %e, %y : f64
    scf.yield %w : f64
  }
  return %r : f64
}

// out[0] = x * y when x < y, else out[0] = x + y; the gradient reads out's shadow as the seed.
func.func @g(%out: memref<1xf64>, %x: f64, %y: f64) attributes {zyg.gradient = @dg} {
  %c0 = arith.constant 0 : index
  %lt = arith.cmpf olt, %x, %y : f64
  scf.if %lt {
    %p = arith.mulf %x, %y : f64
    memref.store %p, %out[%c0] : memref<1xf64>
  } else {
    %s = arith.addf %x, %y : f64
    %c = math.cos %s : f64
    memref.store %c, %out[%c0] : memref<1xf64>
  }
  return
}
