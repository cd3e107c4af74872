; Addresses of differentiated memory that go through integers where zyg cannot follow
; them are refused, naming the instruction: stored to memory as an integer, passed to a
; call as one, a pointer made from a mix of two addresses, and a pointer made from an
; integer read from differentiated memory.
; RUN: not %zyg grad %s -o %t.out.ll 2>&1 | FileCheck %s
; RUN: not test -e %t.out.ll
; RUN: sed 's/@store_as_int, ptr/@mixed, ptr/' %s > %t.mixed.ll
; RUN: not %zyg grad %t.mixed.ll -o %t.out.ll 2>&1 | FileCheck --check-prefix=MIXED %s
; RUN: sed 's/@store_as_int, ptr/@loaded, ptr/' %s > %t.loaded.ll
; RUN: not %zyg grad %t.loaded.ll -o %t.out.ll 2>&1 | FileCheck --check-prefix=LOADED %s
; RUN: sed 's/@store_as_int, ptr/@passed, ptr/' %s > %t.passed.ll
; RUN: not %zyg grad %t.passed.ll -o %t.out.ll 2>&1 | FileCheck --check-prefix=PASSED %s
; RUN: not test -e %t.out.ll
; CHECK: in function `store_as_int`: an address of differentiated memory is stored to memory as an integer
; MIXED: in function `mixed`: this pointer is made from an integer that mixes addresses of differentiated memory
; LOADED: in function `loaded`: this pointer is made from an integer read from differentiated memory
; PASSED: in function `passed`: an address of differentiated memory is passed to this call as an integer

define double @store_as_int(ptr %x, ptr %slot) {
  %i = ptrtoint ptr %x to i64
  store i64 %i, ptr %slot
  %v = load double, ptr %x
  ret double %v
}

define double @mixed(ptr %x, ptr %y) {
  %i = ptrtoint ptr %x to i64
  %j = ptrtoint ptr %y to i64
  %k = add i64 %i, %j
  %p = inttoptr i64 %k to ptr
  %v = load double, ptr %p
  ret double %v
}

define double @loaded(ptr %x, ptr %y) {
  %i = load i64, ptr %y
  %p = inttoptr i64 %i to ptr
  %v = load double, ptr %p
  %w = load double, ptr %x
  %r = fadd double %v, %w
  ret double %r
}

declare double @keep(i64)

define double @passed(ptr %x, ptr %y) {
  %i = ptrtoint ptr %x to i64
  %v = call double @keep(i64 %i)
  %w = load double, ptr %x
  %r = fmul double %v, %w
  ret double %r
}

define double @request(ptr %x, ptr %dx, ptr %y, ptr %dy) {
  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @store_as_int, ptr %x, ptr %dx, ptr %y, ptr %dy)
  ret double %r
}

declare double @__enzyme_autodiff(ptr, ...)
