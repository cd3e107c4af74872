// zyg's own errors name the MLIR line: the lowered functions carry MLIR's locations.
// RUN: rm -f %t.out.ll
// RUN: not %zyg grad %s -o %t.out.ll 2>&1 | FileCheck %s
// RUN: not test -e %t.out.ll
// CHECK: zyg: error: {{.*}}.mlir: in function `f` at {{.*}}mlir_no_derivative.mlir:[[@LINE+5]]:8: no derivative is known for `mystery`

func.func private @mystery(f64) -> f64

func.func @f(%x: f64) -> f64 attributes {zyg.gradient = @df} {
  %y = func.call @mystery(%x) : (f64) -> f64
  %z = arith.mulf %y, %x : f64
  return %z : f64
}
