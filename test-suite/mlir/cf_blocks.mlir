// RUN: %mlir-run -O0 %s %mlir-inputs/cf_blocks.c %t | FileCheck %s
// RUN: %mlir-run -O2 %s %mlir-inputs/cf_blocks.c %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Unstructured control flow (cf.br, cf.cond_br with block arguments): the Taylor series of
// exp(x) summed until the term is negligible, scaled by y; and a cf.switch on a const
// integer argument choosing the formula.
func.func @texp(%x: f64, %y: f64) -> f64 attributes {zyg.gradient = @dtexp} {
  %one = arith.constant 1.0 : f64
  %tol = arith.constant 1.0e-17 : f64
  cf.br ^loop(%one, %one, %one : f64, f64, f64)
^loop(%sum: f64, %term: f64, %k: f64):
  %t = arith.mulf %term, %x : f64
  %t2 = arith.divf %t, %k : f64
  %s2 = arith.addf %sum, %t2 : f64
  %k2 = arith.addf %k, %one : f64
  %a = math.absf %t2 : f64
  %more = arith.cmpf ogt, %a, %tol : f64
  cf.cond_br %more, ^loop(%s2, %t2, %k2 : f64, f64, f64), ^done(%s2 : f64)
^done(%r: f64):
  %ry = arith.mulf %r, %y : f64
  return %ry : f64
}

func.func @choose(%x: f64, %which: i32) -> f64 attributes {zyg.gradient = @dchoose} {
  cf.switch %which : i32, [
    default: ^other,
    0: ^square,
    1: ^cube
  ]
^square:
  %s = arith.mulf %x, %x : f64
  cf.br ^done(%s : f64)
^cube:
  %q = arith.mulf %x, %x : f64
  %c = arith.mulf %q, %x : f64
  cf.br ^done(%c : f64)
^other:
  %e = math.exp %x : f64
  cf.br ^done(%e : f64)
^done(%r: f64):
  return %r : f64
}
