// RUN: %mlir-run -O0 %s %mlir-inputs/memref_inplace.c %t | FileCheck %s
// RUN: %mlir-run -O2 %s %mlir-inputs/memref_inplace.c %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Outputs through memory: the function returns nothing and updates its memref in place,
// several sweeps, each element from its old value and its already-updated left neighbour.
// The gradient reads the shadow as the seed of the final values and leaves in it the
// gradient with respect to the values on entry; x's gradient is returned.
func.func @smooth(%a: memref<?xf64>, %x: f64, %sweeps: index) attributes {zyg.gradient = @dsmooth} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %a, %c0 : memref<?xf64>
  scf.for %k = %c0 to %sweeps step %c1 {
    scf.for %i = %c1 to %n step %c1 {
      %im1 = arith.subi %i, %c1 : index
      %l = memref.load %a[%im1] : memref<?xf64>
      %v = memref.load %a[%i] : memref<?xf64>
      %lx = arith.mulf %l, %x : f64
      %s = math.sin %lx : f64
      %nv = arith.addf %v, %s : f64
      memref.store %nv, %a[%i] : memref<?xf64>
    }
    %first = memref.load %a[%c0] : memref<?xf64>
    %f2 = arith.mulf %first, %x : f64
    memref.store %f2, %a[%c0] : memref<?xf64>
  }
  return
}
