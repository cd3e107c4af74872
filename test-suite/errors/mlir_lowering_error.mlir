// An op of a supported dialect that MLIR's conversions cannot lower: the conversion's own
// message at the op.
// RUN: rm -f %t.out.ll
// RUN: not %zyg grad %s -o %t.out.ll 2>&1 | FileCheck %s
// RUN: not test -e %t.out.ll
// CHECK: zyg: error: {{.*}}mlir_lowering_error.mlir:[[@LINE+3]]:8: failed to legalize operation 'math.ipowi'

func.func @f(%x: f64, %n: i32) -> f64 attributes {zyg.gradient = @df} {
  %a = math.ipowi %n, %n : i32
  %b = arith.sitofp %a : i32 to f64
  %c = arith.mulf %b, %x : f64
  return %c : f64
}
