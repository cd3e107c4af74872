// A C-API request (`func.call @__zyg_autodiff...`) given a memref: the C API's markers
// cannot describe a descriptor, so zyg refuses it and names the attribute to use.
// RUN: rm -f %t.out.ll
// RUN: not %zyg grad %s -o %t.out.ll 2>&1 | FileCheck %s
// RUN: not test -e %t.out.ll
// CHECK: zyg: error: {{.*}}mlir_request_memref_call.mlir:[[@LINE+12]]:3: `@__zyg_autodiff_sum` is given a memref{{.*}}`zyg.gradient = @NAME`

func.func @sum(%a: memref<4xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %v = memref.load %a[%c0] : memref<4xf64>
  return %v : f64
}

func.func private @__zyg_autodiff_sum((memref<4xf64>) -> f64, memref<4xf64>, memref<4xf64>)

func.func @g(%a: memref<4xf64>, %da: memref<4xf64>) {
  %f = func.constant @sum : (memref<4xf64>) -> f64
  func.call @__zyg_autodiff_sum(%f, %a, %da) : ((memref<4xf64>) -> f64, memref<4xf64>, memref<4xf64>) -> ()
  return
}
