// An operation of a dialect zyg does not lower (tensor, linalg, ...) is an error at its
// location, naming the operation and its dialect; exit 1, nothing written.
// RUN: rm -f %t.out.ll
// RUN: not %zyg grad %s -o %t.out.ll 2>&1 | FileCheck %s
// RUN: not test -e %t.out.ll
// CHECK: zyg: error: {{.*}}mlir_unsupported_dialect.mlir:[[@LINE+6]]:8: `tensor.extract`: the `tensor` dialect is not supported

func.func @f(%t: tensor<4xf64>, %x: f64) -> f64 {
  %c0 = arith.constant 0 : index
  %e = arith.constant 1.0 : f64
  %s = arith.mulf %e, %x : f64
  %y = tensor.extract %t[%c0] : tensor<4xf64>
  %r = arith.mulf %s, %y : f64
  return %r : f64
}
