// linalg on memrefs: not lowered by zyg (lower it to loops first); an error at the op.
// RUN: rm -f %t.out.ll
// RUN: not %zyg grad %s -o %t.out.ll 2>&1 | FileCheck %s
// RUN: not test -e %t.out.ll
// CHECK: zyg: error: {{.*}}mlir_unsupported_linalg.mlir:[[@LINE+3]]:3: `linalg.matmul`: the `linalg` dialect is not supported

func.func @mm(%a: memref<4x4xf64>, %b: memref<4x4xf64>, %c: memref<4x4xf64>) attributes {zyg.gradient = @dmm} {
  linalg.matmul ins(%a, %b : memref<4x4xf64>, memref<4x4xf64>) outs(%c : memref<4x4xf64>)
  return
}
