// RUN: %mlir-run -O0 %s %mlir-inputs/scf_while.c %t | FileCheck %s
// RUN: %mlir-run -O2 %s %mlir-inputs/scf_while.c %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// scf.while loops with data-dependent trip counts: Newton's iteration for sqrt(a) until
// the residual is small (d/da = 1 / (2 sqrt a) through the converged iterate), and halving
// x until it is below 1, counting the halvings (piecewise smooth: x / 2^k, times y).
func.func @newton_sqrt(%a: f64) -> f64 attributes {zyg.gradient = @dnewton_sqrt} {
  %half = arith.constant 0.5 : f64
  %tol = arith.constant 1.0e-14 : f64
  %r = scf.while (%x = %a) : (f64) -> f64 {
    %xx = arith.mulf %x, %x : f64
    %res = arith.subf %xx, %a : f64
    %abs = math.absf %res : f64
    %scaled = arith.mulf %tol, %a : f64
    %go = arith.cmpf ogt, %abs, %scaled : f64
    scf.condition(%go) %x : f64
  } do {
  ^bb0(%x: f64):
    %q = arith.divf %a, %x : f64
    %s = arith.addf %x, %q : f64
    %n = arith.mulf %half, %s : f64
    scf.yield %n : f64
  }
  return %r : f64
}

func.func @halve(%x: f64, %y: f64) -> f64 attributes {zyg.gradient = @dhalve} {
  %one = arith.constant 1.0 : f64
  %two = arith.constant 2.0 : f64
  %k0 = arith.constant 0.0 : f64
  %r:2 = scf.while (%v = %x, %k = %k0) : (f64, f64) -> (f64, f64) {
    %big = arith.cmpf oge, %v, %one : f64
    scf.condition(%big) %v, %k : f64, f64
  } do {
  ^bb0(%v: f64, %k: f64):
    %h = arith.divf %v, %two : f64
    %k1 = arith.addf %k, %one : f64
    scf.yield %h, %k1 : f64, f64
  }
  %vy = arith.mulf %r#0, %y : f64
  %s = math.sin %vy : f64
  %out = arith.addf %s, %r#1 : f64
  return %out : f64
}
