// REQUIRES: x86-64-v4
// RUN: %grad-run -O3 %S/../e2e/adbench_hand.c %t.hand -march=x86-64-v4 | FileCheck %s
// RUN: grep -qE "llvm.masked.(gather|scatter)" %t.hand.O3.ll
// RUN: %grad-run -O3 %S/../e2e/la_gram_schmidt_qr.c %t.qr -march=x86-64-v4 | FileCheck %s
// RUN: grep -qE "llvm.masked.(gather|scatter)" %t.qr.O3.ll
// RUN: %grad-run -O3 %S/../e2e/mem_dupnoneed.c %t.dupnoneed -march=x86-64-v4 | FileCheck %s
// RUN: grep -qE "llvm.masked.(gather|scatter)" %t.dupnoneed.O3.ll
// RUN: %grad-run -O3 %S/../e2e/mem_malloc_work.c %t.malloc -march=x86-64-v4 | FileCheck %s
// RUN: grep -qE "llvm.masked.(gather|scatter)" %t.malloc.O3.ll
// RUN: %grad-run -O3 %S/../e2e/nn_lstm_cell.c %t.lstm -march=x86-64-v4 | FileCheck %s
// RUN: grep -qE "llvm.masked.(gather|scatter)" %t.lstm.O3.ll
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Programs of the end-to-end suite that clang vectorises with gathers or scatters on
// differentiated memory at -O3 -march=x86-64-v4 (once refused: "a vector of pointers into
// differentiated memory"), each checked against finite differences by its own main.
