// Malformed MLIR: MLIR's parser message at its file:line:col, exit 1, no output, and an
// existing output file is left as it was.
// RUN: echo previous > %t.out.ll
// RUN: not %zyg grad %s -o %t.out.ll 2>&1 | FileCheck %s
// RUN: FileCheck --check-prefix=KEPT %s < %t.out.ll
// RUN: rm -f %t.new.ll %t.new.mlir
// RUN: not %zyg grad %s -o %t.new.ll 2>&1 | FileCheck %s
// RUN: not test -e %t.new.ll
// RUN: not %zyg grad %s -o %t.new.mlir 2>&1 | FileCheck %s
// RUN: not test -e %t.new.mlir
// A missing .mlir file is reported like a missing .ll.
// RUN: not %zyg grad %t.does-not-exist.mlir -o %t.new.ll 2>&1 | FileCheck --check-prefix=MISSING %s
// CHECK: zyg: error: {{.*}}mlir_parse_error.mlir:[[@LINE+6]]:8: custom op 'arith.bogus' is unknown
// KEPT: previous
// MISSING: zyg: error: {{.*}}does-not-exist.mlir: No such file

func.func @f(%x: f64) -> f64 attributes {zyg.gradient = @df} {
  %y = arith.mulf %x, %x : f64
  %z = arith.bogus %y : f64
  return %z : f64
}
