// RUN: %mlir-run -O0 %s %mlir-inputs/call_request_f32_2d.c %t | FileCheck %s
// RUN: %mlir-run -O2 %s %mlir-inputs/call_request_f32_2d.c %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// func.call requests in MLIR on f32 memrefs and 2-D memrefs (each descriptor's seven
// fields: two pointers `dup`, offset, two sizes and two strides `const`), with several
// `out` results, as several results or as one `!llvm.struct` of them.

// sum_i w[i]^2 x + w[i] y^2
func.func @f32loss(%w: memref<?xf32>, %x: f32, %y: f32) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %w, %c0 : memref<?xf32>
  %zero = arith.constant 0.0 : f32
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (f32) {
    %wi = memref.load %w[%i] : memref<?xf32>
    %sq = arith.mulf %wi, %wi : f32
    %a = arith.mulf %sq, %x : f32
    %yy = arith.mulf %y, %y : f32
    %b = arith.mulf %wi, %yy : f32
    %t = arith.addf %a, %b : f32
    %u = arith.addf %acc, %t : f32
    scf.yield %u : f32
  }
  return %r : f32
}

// s * v^T A v + a * sum_ij sin(A[i][j]) + b^2
func.func @quad(%A: memref<?x?xf64>, %v: memref<?xf64>, %s: f64, %a: f64, %b: f64) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %rows = memref.dim %A, %c0 : memref<?x?xf64>
  %cols = memref.dim %A, %c1 : memref<?x?xf64>
  %zero = arith.constant 0.0 : f64
  %r:2 = scf.for %i = %c0 to %rows step %c1 iter_args(%q = %zero, %t = %zero) -> (f64, f64) {
    %inner:2 = scf.for %j = %c0 to %cols step %c1 iter_args(%qq = %q, %tt = %t) -> (f64, f64) {
      %aij = memref.load %A[%i, %j] : memref<?x?xf64>
      %vi = memref.load %v[%i] : memref<?xf64>
      %vj = memref.load %v[%j] : memref<?xf64>
      %p = arith.mulf %vi, %aij : f64
      %pv = arith.mulf %p, %vj : f64
      %q2 = arith.addf %qq, %pv : f64
      %sn = math.sin %aij : f64
      %t2 = arith.addf %tt, %sn : f64
      scf.yield %q2, %t2 : f64, f64
    }
    scf.yield %inner#0, %inner#1 : f64, f64
  }
  %sq = arith.mulf %s, %r#0 : f64
  %at = arith.mulf %a, %r#1 : f64
  %bb = arith.mulf %b, %b : f64
  %u = arith.addf %sq, %at : f64
  %res = arith.addf %u, %bb : f64
  return %res : f64
}

func.func private @__zyg_autodiff_f32loss((memref<?xf32>, f32, f32) -> f32, memref<?xf32>, memref<?xf32>, f32, f32) -> (f32, f32)
func.func private @__zyg_fwddiff_f32loss((memref<?xf32>, f32, f32) -> f32, memref<?xf32>, memref<?xf32>, f32, f32, f32, f32) -> f32
func.func private @__zyg_autodiff_quad((memref<?x?xf64>, memref<?xf64>, f64, f64, f64) -> f64,
    memref<?x?xf64>, memref<?x?xf64>, memref<?xf64>, memref<?xf64>, f64, f64, f64) -> !llvm.struct<(f64, f64, f64)>
func.func private @__zyg_autodiff_quad_ab((memref<?x?xf64>, memref<?xf64>, f64, f64, f64) -> f64,
    memref<?x?xf64>, memref<?xf64>, f64, f64, f64) -> (f64, f64)
func.func private @__zyg_fwddiff_quad((memref<?x?xf64>, memref<?xf64>, f64, f64, f64) -> f64,
    memref<?x?xf64>, memref<?x?xf64>, memref<?xf64>, f64, f64, f64, f64) -> f64

// dw += d/dw; out[0], out[1] = d/dx, d/dy (two f32 results, stored: C returns a pair of
// floats otherwise than MLIR does).
func.func @grad_f32loss(%w: memref<?xf32>, %dw: memref<?xf32>, %x: f32, %y: f32, %out: memref<2xf32>) {
  %f = func.constant @f32loss : (memref<?xf32>, f32, f32) -> f32
  %d:2 = func.call @__zyg_autodiff_f32loss(%f, %w, %dw, %x, %y)
      : ((memref<?xf32>, f32, f32) -> f32, memref<?xf32>, memref<?xf32>, f32, f32) -> (f32, f32)
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  memref.store %d#0, %out[%c0] : memref<2xf32>
  memref.store %d#1, %out[%c1] : memref<2xf32>
  return
}

func.func @tangent_f32loss(%w: memref<?xf32>, %tw: memref<?xf32>, %x: f32, %tx: f32, %y: f32, %ty: f32) -> f32 {
  %f = func.constant @f32loss : (memref<?xf32>, f32, f32) -> f32
  %t = func.call @__zyg_fwddiff_f32loss(%f, %w, %tw, %x, %tx, %y, %ty)
      : ((memref<?xf32>, f32, f32) -> f32, memref<?xf32>, memref<?xf32>, f32, f32, f32, f32) -> f32
  return %t : f32
}

// dA, dv += ...; out[0..2] = d/ds, d/da, d/db, from one `!llvm.struct` result.
func.func @grad_quad(%A: memref<?x?xf64>, %dA: memref<?x?xf64>, %v: memref<?xf64>, %dv: memref<?xf64>,
    %s: f64, %a: f64, %b: f64, %out: memref<3xf64>) {
  %f = func.constant @quad : (memref<?x?xf64>, memref<?xf64>, f64, f64, f64) -> f64
  %d = func.call @__zyg_autodiff_quad(%f, %A, %dA, %v, %dv, %s, %a, %b)
      : ((memref<?x?xf64>, memref<?xf64>, f64, f64, f64) -> f64, memref<?x?xf64>, memref<?x?xf64>, memref<?xf64>,
         memref<?xf64>, f64, f64, f64) -> !llvm.struct<(f64, f64, f64)>
  %ds = llvm.extractvalue %d[0] : !llvm.struct<(f64, f64, f64)>
  %da = llvm.extractvalue %d[1] : !llvm.struct<(f64, f64, f64)>
  %db = llvm.extractvalue %d[2] : !llvm.struct<(f64, f64, f64)>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  memref.store %ds, %out[%c0] : memref<3xf64>
  memref.store %da, %out[%c1] : memref<3xf64>
  memref.store %db, %out[%c2] : memref<3xf64>
  return
}

// Only a and b: two f64 results, returned as they come (a C struct of two doubles).
func.func @grad_quad_ab(%A: memref<?x?xf64>, %v: memref<?xf64>, %s: f64, %a: f64, %b: f64) -> (f64, f64) {
  %f = func.constant @quad : (memref<?x?xf64>, memref<?xf64>, f64, f64, f64) -> f64
  %d:2 = func.call @__zyg_autodiff_quad_ab(%f, %A, %v, %s, %a, %b) {zyg.args = "const,const,const,out,out"}
      : ((memref<?x?xf64>, memref<?xf64>, f64, f64, f64) -> f64, memref<?x?xf64>, memref<?xf64>, f64, f64, f64) -> (f64, f64)
  return %d#0, %d#1 : f64, f64
}

// Forward mode along A's tangent and s's; v, a, b const.
func.func @tangent_quad(%A: memref<?x?xf64>, %tA: memref<?x?xf64>, %v: memref<?xf64>, %s: f64, %ts: f64, %a: f64, %b: f64) -> f64 {
  %f = func.constant @quad : (memref<?x?xf64>, memref<?xf64>, f64, f64, f64) -> f64
  %t = func.call @__zyg_fwddiff_quad(%f, %A, %tA, %v, %s, %ts, %a, %b) {zyg.args = ["dup", "const", "dup", "const", "const"]}
      : ((memref<?x?xf64>, memref<?xf64>, f64, f64, f64) -> f64, memref<?x?xf64>, memref<?x?xf64>, memref<?xf64>,
         f64, f64, f64, f64) -> f64
  return %t : f64
}
