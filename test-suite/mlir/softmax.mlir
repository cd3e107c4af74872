// RUN: %mlir-run -O0 %s %mlir-inputs/softmax.c %t | FileCheck %s
// RUN: %mlir-run -O2 %s %mlir-inputs/softmax.c %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Softmax written to an output memref (stable: the maximum is subtracted first), and the
// cross-entropy of a softmax against a target class, log-sum-exp minus the target logit,
// with the temperature t as an `out` scalar.
func.func @softmax(%z: memref<?xf64>, %p: memref<?xf64>) attributes {zyg.gradient = @dsoftmax} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %z, %c0 : memref<?xf64>
  %z0 = memref.load %z[%c0] : memref<?xf64>
  %max = scf.for %i = %c1 to %n step %c1 iter_args(%m = %z0) -> (f64) {
    %zi = memref.load %z[%i] : memref<?xf64>
    %m2 = arith.maximumf %m, %zi : f64
    scf.yield %m2 : f64
  }
  %zero = arith.constant 0.0 : f64
  %sum = scf.for %i = %c0 to %n step %c1 iter_args(%s = %zero) -> (f64) {
    %zi = memref.load %z[%i] : memref<?xf64>
    %d = arith.subf %zi, %max : f64
    %e = math.exp %d : f64
    memref.store %e, %p[%i] : memref<?xf64>
    %s2 = arith.addf %s, %e : f64
    scf.yield %s2 : f64
  }
  scf.for %i = %c0 to %n step %c1 {
    %e = memref.load %p[%i] : memref<?xf64>
    %q = arith.divf %e, %sum : f64
    memref.store %q, %p[%i] : memref<?xf64>
  }
  return
}

func.func @xent(%z: memref<?xf64>, %t: f64, %target: index) -> f64 attributes {zyg.gradient = @dxent} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %z, %c0 : memref<?xf64>
  %ninf = arith.constant 0xFFF0000000000000 : f64
  %max = scf.for %i = %c0 to %n step %c1 iter_args(%m = %ninf) -> (f64) {
    %zi = memref.load %z[%i] : memref<?xf64>
    %zt = arith.divf %zi, %t : f64
    %m2 = arith.maximumf %m, %zt : f64
    scf.yield %m2 : f64
  }
  %zero = arith.constant 0.0 : f64
  %sum = scf.for %i = %c0 to %n step %c1 iter_args(%s = %zero) -> (f64) {
    %zi = memref.load %z[%i] : memref<?xf64>
    %zt = arith.divf %zi, %t : f64
    %d = arith.subf %zt, %max : f64
    %e = math.exp %d : f64
    %s2 = arith.addf %s, %e : f64
    scf.yield %s2 : f64
  }
  %lse0 = math.log %sum : f64
  %lse = arith.addf %lse0, %max : f64
  %zk = memref.load %z[%target] : memref<?xf64>
  %zkt = arith.divf %zk, %t : f64
  %loss = arith.subf %lse, %zkt : f64
  return %loss : f64
}
