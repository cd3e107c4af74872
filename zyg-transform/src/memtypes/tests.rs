//! Tests of the type analysis of memory on small modules in zyg-ir's text form.

use super::*;
use zyg_ir::text::parse_module;
use zyg_ir::FloatTy;

/// A helper that sees a record {double; float; float} as bytes: it reads the double key
/// and copies the record 16 bytes on. The caller's accesses to the record's floats are
/// what types its bytes 8..16; each test's caller makes them in its own way.
const HELPER: &str = r#"
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)

define void @dup(ptr %b) {
entry:
  %k = load double, ptr %b
  %d = getelementptr i8, ptr %b, i64 16
  call void @llvm.memcpy.p0.p0.i64(ptr %d, ptr %b, i64 16, i1 false)
  ret void
}
"#;

/// What the type analysis says the helper's copy moves.
fn helper_copy(caller: &str) -> Known {
    let module = parse_module(&format!("{HELPER}{caller}")).unwrap_or_else(|e| panic!("{e}"));
    let types = MemTypes::compute(&module);
    let dup = module.function("dup").expect("dup");
    let (_, copy) = dup.inst_order().find(|(_, i)| crate::memory::mem_op(&dup.insts[*i].kind).is_some()).expect("a copy");
    let (_, dst, src, _) = crate::memory::mem_op(&dup.insts[copy].kind).expect("a copy");
    types.copy(dup, dst, src, Some(16))
}

fn record() -> Known {
    let pieces = vec![(0, 8, Kind::Float(FloatTy::F64)), (8, 4, Kind::Float(FloatTy::F32)), (12, 4, Kind::Float(FloatTy::F32))];
    Known::Layout(CopyLayout { period: 16, pieces }, vec![])
}

#[test]
fn two_loads_of_one_pointer_point_into_one_object() {
    // The caller reads the record's pointer from its context once for the call and once
    // for its own accesses.
    let known = helper_copy(
        r#"
define double @f(ptr %c) {
entry:
  %r1 = load ptr, ptr %c
  call void @dup(ptr %r1)
  %r2 = load ptr, ptr %c
  %a = load double, ptr %r2
  %pb = getelementptr i8, ptr %r2, i64 8
  %b = load float, ptr %pb
  %pc = getelementptr i8, ptr %r2, i64 12
  %cc = load float, ptr %pc
  ret double %a
}
"#,
    );
    assert_eq!(known, record());
}

#[test]
fn a_stored_pointer_is_what_loads_from_its_place_point_to() {
    let known = helper_copy(
        r#"
define double @f(ptr %c, ptr %r) {
entry:
  %a = load double, ptr %r
  %pb = getelementptr i8, ptr %r, i64 8
  %b = load float, ptr %pb
  %pc = getelementptr i8, ptr %r, i64 12
  %cc = load float, ptr %pc
  store ptr %r, ptr %c
  %r1 = load ptr, ptr %c
  call void @dup(ptr %r1)
  ret double %a
}
"#,
    );
    assert_eq!(known, record());
}

#[test]
fn bytes_nothing_types_are_holes() {
    // The caller's accesses go through a pointer zyg cannot connect to the helper's.
    let known = helper_copy(
        r#"
define double @f(ptr %c, ptr %other) {
entry:
  %r1 = load ptr, ptr %c
  call void @dup(ptr %r1)
  %pb = getelementptr i8, ptr %other, i64 8
  %b = load float, ptr %pb
  %a = load double, ptr %r1
  ret double %a
}
"#,
    );
    let pieces = vec![(0, 8, Kind::Float(FloatTy::F64))];
    assert_eq!(known, Known::Layout(CopyLayout { period: 16, pieces }, vec![(8, 8)]));
}

#[test]
fn a_copy_at_an_offset_zyg_cannot_tell_says_only_what_the_object_holds() {
    let module = parse_module(
        r#"
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)

define void @move(ptr %b, i64 %off, i64 %n) {
entry:
  %tmp = alloca [64 x i8]
  %k = load double, ptr %b
  %pp = getelementptr i8, ptr %b, i64 8
  %p = load ptr, ptr %pp
  %x = getelementptr i8, ptr %b, i64 %off
  call void @llvm.memcpy.p0.p0.i64(ptr %tmp, ptr %x, i64 %n, i1 false)
  ret void
}
"#,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let types = MemTypes::compute(&module);
    let f = module.function("move").expect("move");
    let (_, copy) = f.inst_order().find(|(_, i)| crate::memory::mem_op(&f.insts[*i].kind).is_some()).expect("a copy");
    let (_, dst, src, _) = crate::memory::mem_op(&f.insts[copy].kind).expect("a copy");
    assert_eq!(types.copy(f, dst, src, None), Known::Unaligned(vec![Kind::Float(FloatTy::F64), Kind::Pointer]));
}

/// What the analysis says of the `size` bytes at `offset` of function `f`'s parameter
/// `param`.
fn param_bytes(module: &zyg_ir::Module, types: &MemTypes, f: &str, param: usize, offset: i64, size: u64) -> Known {
    let func = module.function(f).expect("the function");
    let place = types.places[&func.name][func.params[param]].expect("a place");
    types.describe(Place { offset: place.offset + offset, ..place }, size)
}

#[test]
fn integer_fields_copied_twice_into_one_struct_keep_it_from_repeating() {
    // A record { double, i64 } copied field by field (as clang -O0 copies a struct) into
    // two places of one struct { double, { double, i64 }, { double, i64 } }: the integer
    // copies must not make the struct repeat every 16 bytes, its doubles over its integers.
    let module = parse_module(
        r#"
define void @fill(ptr %r, double %x, i64 %n) {
entry:
  store double %x, ptr %r
  %pn = getelementptr i8, ptr %r, i64 8
  %m = add i64 %n, i64 1
  store i64 %m, ptr %pn
  ret void
}

define void @both(ptr %s, double %x, i64 %n) {
entry:
  %r = alloca { double, i64 }
  call void @fill(ptr %r, double %x, i64 %n)
  store double %x, ptr %s
  %v = load double, ptr %r
  %pn = getelementptr i8, ptr %r, i64 8
  %k = load i64, ptr %pn
  %d1 = getelementptr i8, ptr %s, i64 8
  store double %v, ptr %d1
  %d1n = getelementptr i8, ptr %s, i64 16
  store i64 %k, ptr %d1n
  %d2 = getelementptr i8, ptr %s, i64 24
  store double %v, ptr %d2
  %d2n = getelementptr i8, ptr %s, i64 32
  store i64 %k, ptr %d2n
  ret void
}
"#,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let types = MemTypes::compute(&module);
    assert_eq!(param_bytes(&module, &types, "both", 0, 16, 8), Known::All(Kind::Integer));
    assert_eq!(param_bytes(&module, &types, "both", 0, 32, 8), Known::All(Kind::Integer));
    assert_eq!(param_bytes(&module, &types, "both", 0, 24, 8), Known::All(Kind::Float(FloatTy::F64)));
    assert_eq!(param_bytes(&module, &types, "fill", 0, 8, 8), Known::All(Kind::Integer));
}

#[test]
fn tape_stack_headers_do_not_merge_the_tapes_holding_them() {
    // Two tapes with a stack header at different offsets (8 and 16): a stack helper's
    // parameter merged with both would make them one class, shifted by 8, and the second
    // tape's double would fall on the first's integer.
    let module = parse_module(
        r#"
define ptr @__zyg_stack_push(ptr %h, i64 %size) {
entry:
  %c = load ptr, ptr %h
  ret ptr %c
}

define void @a(ptr %t, double %x) {
entry:
  store double %x, ptr %t
  %h = getelementptr i8, ptr %t, i64 8
  %r = call ptr @__zyg_stack_push(ptr %h, i64 8)
  store double %x, ptr %r
  ret void
}

define void @b(ptr %t, i64 %n, double %x) {
entry:
  %m = add i64 %n, i64 1
  store i64 %m, ptr %t
  %pd = getelementptr i8, ptr %t, i64 8
  store double %x, ptr %pd
  %h = getelementptr i8, ptr %t, i64 16
  %r = call ptr @__zyg_stack_push(ptr %h, i64 16)
  %ri = getelementptr i8, ptr %r, i64 8
  store i64 %m, ptr %ri
  ret void
}
"#,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let types = MemTypes::compute(&module);
    assert_eq!(param_bytes(&module, &types, "a", 0, 0, 8), Known::All(Kind::Float(FloatTy::F64)));
    assert_eq!(param_bytes(&module, &types, "b", 0, 0, 8), Known::All(Kind::Integer));
    assert_eq!(param_bytes(&module, &types, "b", 0, 16, 8), Known::All(Kind::Pointer));
    assert_eq!(param_bytes(&module, &types, "b", 0, 24, 16), Known::All(Kind::Integer));
}
