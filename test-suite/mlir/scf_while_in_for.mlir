// RUN: %mlir-run -O0 %s %mlir-inputs/scf_while_in_for.c %t | FileCheck %s
// RUN: %mlir-run -O2 %s %mlir-inputs/scf_while_in_for.c %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// An scf.while nested in an scf.for: for each element a_i, the fixed point of
// u = cos(a_i u) + s iterated until it settles (a different trip count per element),
// written to an output memref; the gradient goes through every iteration.
func.func @fixed_points(%a: memref<?xf64>, %out: memref<?xf64>, %s: f64) attributes {zyg.gradient = @dfixed_points} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %a, %c0 : memref<?xf64>
  %tol = arith.constant 1.0e-15 : f64
  %u0 = arith.constant 0.5 : f64
  scf.for %i = %c0 to %n step %c1 {
    %ai = memref.load %a[%i] : memref<?xf64>
    %u = scf.while (%u = %u0) : (f64) -> f64 {
      %au = arith.mulf %ai, %u : f64
      %c = math.cos %au : f64
      %next = arith.addf %c, %s : f64
      %d = arith.subf %next, %u : f64
      %ad = math.absf %d : f64
      %go = arith.cmpf ogt, %ad, %tol : f64
      scf.condition(%go) %next : f64
    } do {
    ^bb0(%v: f64):
      scf.yield %v : f64
    }
    memref.store %u, %out[%i] : memref<?xf64>
  }
  return
}
