// `-o OUT.mlir` writes the result as MLIR's LLVM dialect (MLIR's importer), which
// mlir-translate turns back into LLVM IR that runs like zyg's own `.ll` output.
// RUN: rm -f %t.mlir
// RUN: %zyg grad %s -o %t.mlir
// RUN: FileCheck %s < %t.mlir
// RUN: mlir-translate --mlir-to-llvmir %t.mlir -o %t.rt.ll
// RUN: %clang %t.rt.ll %mlir-inputs/output_mlir.c -I %include -I %mlir-inputs -lm -o %t.exe
// RUN: %t.exe | FileCheck --check-prefix=EXE %s
// RUN: %zyg grad %s -O0 -o %t.O0.mlir
// RUN: mlir-translate --mlir-to-llvmir %t.O0.mlir -o %t.O0.rt.ll
// RUN: %clang %t.O0.rt.ll %mlir-inputs/output_mlir.c -I %include -I %mlir-inputs -lm -o %t.O0.exe
// RUN: %t.O0.exe | FileCheck --check-prefix=EXE %s
//
// CHECK: module attributes {{{.*}}llvm.target_triple = "{{.+}}"
// CHECK-DAG: llvm.func {{.*}}@norm2(%arg0: !llvm.ptr {{.*}}, %arg1: !llvm.ptr {{.*}}, %arg2: i64, %arg3: i64, %arg4: i64) -> f64
// CHECK-DAG: llvm.func {{.*}}@dnorm2(%arg0: !llvm.ptr {{.*}}, %arg1: !llvm.ptr {{.*}}, %arg2: i64, %arg3: i64, %arg4: i64, %arg5: !llvm.ptr {{.*}}, %arg6: !llvm.ptr {{.*}}, %arg7: i64, %arg8: i64, %arg9: i64)
// EXE-NOT: FAIL
// EXE: ALL OK

func.func @norm2(%a: memref<?xf64>) -> f64 attributes {zyg.gradient = @dnorm2} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %a, %c0 : memref<?xf64>
  %z = arith.constant 0.0 : f64
  %s = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (f64) {
    %v = memref.load %a[%i] : memref<?xf64>
    %q = arith.mulf %v, %v : f64
    %r = arith.addf %acc, %q : f64
    scf.yield %r : f64
  }
  %r = math.sqrt %s : f64
  return %r : f64
}
