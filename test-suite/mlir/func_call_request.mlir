// RUN: %mlir-run -O0 %s %mlir-inputs/func_call_request.c %t | FileCheck %s
// RUN: %mlir-run -O2 %s %mlir-inputs/func_call_request.c %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// The C API from MLIR, for scalar functions: a func.call to a declared
// `__zyg_autodiff_*` function taking the function (func.constant) and its arguments is a
// request like `__enzyme_autodiff((void *)f, x, y)` in C, its results the gradients.
// (With memrefs or `zyg.args` the call is read by zyg's MLIR reader instead, which knows
// the descriptors: call_request_memref.mlir.)
func.func @f(%x: f64, %y: f64) -> f64 {
  %p = arith.mulf %x, %y : f64
  %s = math.sin %p : f64
  %e = math.exp %y : f64
  %r = arith.addf %s, %e : f64
  return %r : f64
}

func.func private @__zyg_autodiff_f((f64, f64) -> f64, f64, f64) -> !llvm.struct<(f64, f64)>

func.func @grad_f(%x: f64, %y: f64) -> (f64, f64) {
  %fp = func.constant @f : (f64, f64) -> f64
  %d = func.call @__zyg_autodiff_f(%fp, %x, %y) : ((f64, f64) -> f64, f64, f64) -> !llvm.struct<(f64, f64)>
  %dx = llvm.extractvalue %d[0] : !llvm.struct<(f64, f64)>
  %dy = llvm.extractvalue %d[1] : !llvm.struct<(f64, f64)>
  return %dx, %dy : f64, f64
}
