// RUN: %mlir-run -O0 %s %mlir-inputs/memref_alloc.c %t | FileCheck %s
// RUN: %mlir-run -O2 %s %mlir-inputs/memref_alloc.c %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Memory the function allocates: a heap memref (memref.alloc / memref.dealloc, malloc and
// free after lowering) holding prefix sums, and a stack memref (memref.alloca) of fixed size
// holding squares; zyg gives each a shadow of its own.
func.func @prefix(%x: memref<?xf64>, %s: f64) -> f64 attributes {zyg.gradient = @dprefix} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %n = memref.dim %x, %c0 : memref<?xf64>
  %p = memref.alloc(%n) : memref<?xf64>
  %q = memref.alloca() : memref<4xf64>
  %zero = arith.constant 0.0 : f64
  %last = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (f64) {
    %xi = memref.load %x[%i] : memref<?xf64>
    %sx = arith.mulf %s, %xi : f64
    %t = arith.addf %acc, %sx : f64
    memref.store %t, %p[%i] : memref<?xf64>
    scf.yield %t : f64
  }
  scf.for %k = %c0 to %c4 step %c1 {
    %pk = memref.load %p[%k] : memref<?xf64>
    %sq = arith.mulf %pk, %pk : f64
    memref.store %sq, %q[%k] : memref<4xf64>
  }
  %total = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %last) -> (f64) {
    %pi = memref.load %p[%i] : memref<?xf64>
    %k = arith.remui %i, %c4 : index
    %qk = memref.load %q[%k] : memref<4xf64>
    %m = arith.mulf %pi, %qk : f64
    %e = math.tanh %m : f64
    %t = arith.addf %acc, %e : f64
    scf.yield %t : f64
  }
  memref.dealloc %p : memref<?xf64>
  return %total : f64
}
