// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// adbench_hand.c at ADBench's hand size: 22 bones (two fixed, five fingers of four), so the
// 26 pose parameters of the reference, with 60 vertices and 50 correspondences.
#define NB 22
#define NV 60
#define NC 50
#include "adbench_hand.c"
