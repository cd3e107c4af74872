// REQUIRES: x86-64-v3
// RUN: %grad-run -O3 %S/gather_vector_loops.c %t.v3 -march=x86-64-v3 -mtune=skylake | FileCheck %s
// RUN: grep -q "llvm.masked.gather" %t.v3.O3.ll
// CHECK-NOT: FAIL
// CHECK: ALL OK
// gather_vector_loops.c with AVX2, tuned for a CPU whose gathers are fast (skylake), where
// clang makes gathers (AVX2 has no scatter) of the conditional and indexed loads.
