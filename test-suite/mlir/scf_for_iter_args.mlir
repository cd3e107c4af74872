// RUN: %mlir-run -O0 %s %mlir-inputs/scf_for_iter_args.c %t | FileCheck %s
// RUN: %mlir-run -O2 %s %mlir-inputs/scf_for_iter_args.c %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// A linear recurrence with two iter_args, (a, b) -> (b, x a + y b), n times, and a damped
// oscillator stepped by an scf.for with a non-unit step over integer bounds.
func.func @recur(%x: f64, %y: f64, %n: index) -> f64 attributes {zyg.gradient = @drecur} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a0 = arith.constant 0.5 : f64
  %b0 = arith.constant 1.0 : f64
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%a = %a0, %b = %b0) -> (f64, f64) {
    %xa = arith.mulf %x, %a : f64
    %yb = arith.mulf %y, %b : f64
    %nb = arith.addf %xa, %yb : f64
    scf.yield %b, %nb : f64, f64
  }
  %s = arith.addf %r#0, %r#1 : f64
  return %s : f64
}

func.func @oscillate(%k: f64, %damp: f64, %steps: i32) -> f64 attributes {zyg.gradient = @doscillate} {
  %lo = arith.constant 0 : i32
  %st = arith.constant 2 : i32
  %dt = arith.constant 0.05 : f64
  %p0 = arith.constant 1.0 : f64
  %v0 = arith.constant 0.0 : f64
  %r:2 = scf.for %i = %lo to %steps step %st iter_args(%p = %p0, %v = %v0) -> (f64, f64) : i32 {
    %kp = arith.mulf %k, %p : f64
    %dv = arith.mulf %damp, %v : f64
    %acc = arith.addf %kp, %dv : f64
    %a = arith.negf %acc : f64
    %adt = arith.mulf %a, %dt : f64
    %nv = arith.addf %v, %adt : f64
    %vdt = arith.mulf %nv, %dt : f64
    %np = arith.addf %p, %vdt : f64
    scf.yield %np, %nv : f64, f64
  }
  %e = arith.mulf %r#0, %r#0 : f64
  return %e : f64
}
