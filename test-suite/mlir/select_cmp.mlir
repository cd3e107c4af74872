// RUN: %mlir-run -O0 %s %mlir-inputs/select_cmp.c %t | FileCheck %s
// RUN: %mlir-run -O2 %s %mlir-inputs/select_cmp.c %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// arith.select on float comparisons (a Huber loss, a leaky ReLU, a clamp), arith.cmpf
// predicates of both orderings, and floor/ceil/round (zero derivative) mixed in.
func.func @huber(%r: f64, %delta: f64) -> f64 attributes {zyg.gradient = @dhuber} {
  %a = math.absf %r : f64
  %small = arith.cmpf ule, %a, %delta : f64
  %half = arith.constant 0.5 : f64
  %r2 = arith.mulf %r, %r : f64
  %q = arith.mulf %half, %r2 : f64
  %hd = arith.mulf %half, %delta : f64
  %ad = arith.subf %a, %hd : f64
  %l = arith.mulf %delta, %ad : f64
  %v = arith.select %small, %q, %l : f64
  return %v : f64
}

func.func @leaky_clamp(%x: f64, %y: f64) -> f64 attributes {zyg.gradient = @dleaky_clamp} {
  %zero = arith.constant 0.0 : f64
  %slope = arith.constant 0.1 : f64
  %lo = arith.constant -1.5 : f64
  %hi = arith.constant 2.5 : f64
  %xy = arith.mulf %x, %y : f64
  %neg = arith.cmpf olt, %xy, %zero : f64
  %leak = arith.mulf %slope, %xy : f64
  %relu = arith.select %neg, %leak, %xy : f64
  %under = arith.cmpf ult, %relu, %lo : f64
  %c1 = arith.select %under, %lo, %relu : f64
  %over = arith.cmpf ogt, %c1, %hi : f64
  %c2 = arith.select %over, %hi, %c1 : f64
  %fl = math.floor %x : f64
  %ce = math.ceil %y : f64
  %ro = math.round %xy : f64
  %steps = arith.addf %fl, %ce : f64
  %steps2 = arith.addf %steps, %ro : f64
  %r = arith.addf %c2, %steps2 : f64
  %e = arith.mulf %r, %x : f64
  return %e : f64
}
