// A dialect MLIR does not know: its parser's message, at the op.
// RUN: rm -f %t.out.ll
// RUN: not %zyg grad %s -o %t.out.ll 2>&1 | FileCheck %s
// RUN: not test -e %t.out.ll
// CHECK: zyg: error: {{.*}}mlir_unknown_dialect.mlir:[[@LINE+3]]:8: Dialect `foo' not found for custom op 'foo.bar'

func.func @f(%x: f64) -> f64 {
  %y = foo.bar %x : f64
  return %y : f64
}
