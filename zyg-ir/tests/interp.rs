//! The interpreter on small functions of the text form: loops with phis, memory, structs,
//! vectors, integer and float semantics, calls, and the errors that stop a run.

use zyg_ir::interp::{field_offsets, InterpError, Interpreter, Val};
use zyg_ir::text::parse_module;
use zyg_ir::Type;

fn interp(text: &str) -> Interpreter {
    let m = parse_module(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    for f in &m.functions {
        zyg_ir::verify(f).unwrap_or_else(|e| panic!("{e}"));
    }
    Interpreter::with_module(&m).unwrap()
}

fn f64_of(r: Result<Option<Val>, InterpError>) -> f64 {
    r.unwrap().and_then(|v| v.as_f64()).expect("a float result")
}

fn int_of(r: Result<Option<Val>, InterpError>) -> i128 {
    r.unwrap().and_then(|v| v.as_i128()).expect("an integer result")
}

const SUM_OF_SQUARES: &str = r#"
define double @sumsq(ptr %x, i64 %n) {
entry:
  %empty = icmp sle i64 %n, i64 0
  br i1 %empty, label %exit, label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %acc = phi double [ 0.0, %entry ], [ %acc.next, %loop ]
  %p = getelementptr inbounds double, ptr %x, i64 %i
  %v = load double, ptr %p
  %sq = fmul double %v, double %v
  %acc.next = fadd double %acc, double %sq
  %i.next = add i64 %i, i64 1
  %more = icmp slt i64 %i.next, i64 %n
  br i1 %more, label %loop, label %exit
exit:
  %r = phi double [ 0.0, %entry ], [ %acc.next, %loop ]
  ret double %r
}
"#;

#[test]
fn loop_over_an_array() {
    let mut it = interp(SUM_OF_SQUARES);
    let x = it.alloc_f64s(&[1.0, 2.0, 3.0, 4.0]).unwrap();
    assert_eq!(f64_of(it.call("sumsq", &[x.clone(), Val::i64(4)])), 30.0);
    assert_eq!(f64_of(it.call("sumsq", &[x.clone(), Val::i64(0)])), 0.0);
    // One past the end is outside the buffer.
    let e = it.call("sumsq", &[x, Val::i64(5)]).unwrap_err();
    assert!(matches!(e, InterpError::BadAccess { .. }), "{e}");
    // Wrong arguments are refused before the run.
    assert!(matches!(it.call("sumsq", &[Val::f64(1.0)]), Err(InterpError::BadArguments { .. })));
}

#[test]
fn phis_read_together() {
    // Each iteration swaps a and b: the phis read the previous iteration's values together.
    let mut it = interp(
        r#"
define i32 @swap(i32 %n) {
entry:
  br label %loop
loop:
  %a = phi i32 [ 1, %entry ], [ %b, %loop ]
  %b = phi i32 [ 2, %entry ], [ %a, %loop ]
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %i.next = add i32 %i, i32 1
  %more = icmp slt i32 %i.next, i32 %n
  br i1 %more, label %loop, label %exit
exit:
  %r = mul i32 %a, i32 10
  %s = add i32 %r, i32 %b
  ret i32 %s
}
"#,
    );
    assert_eq!(int_of(it.call("swap", &[Val::i32(1)])), 12);
    assert_eq!(int_of(it.call("swap", &[Val::i32(2)])), 21);
    assert_eq!(int_of(it.call("swap", &[Val::i32(5)])), 12);
}

#[test]
fn structs_in_memory_have_natural_layout() {
    let ty = Type::structure(vec![Type::I8, Type::F64, Type::I32, Type::PTR, Type::F32]);
    assert_eq!(field_offsets(&[Type::I8, Type::F64, Type::I32, Type::PTR, Type::F32]).unwrap(), vec![0, 8, 16, 24, 32]);
    assert_eq!(ty.natural_layout(), Some((40, 8)));
    let mut it = interp(
        r#"
define double @fields(double %x) {
entry:
  %s = alloca { i8, double, [2 x i32], { float, double } }
  %f1 = getelementptr { i8, double, [2 x i32], { float, double } }, ptr %s, i32 0, i32 1
  store double %x, ptr %f1
  %f2 = getelementptr { i8, double, [2 x i32], { float, double } }, ptr %s, i32 0, i32 2, i64 1
  store i32 7, ptr %f2
  %f3 = getelementptr { i8, double, [2 x i32], { float, double } }, ptr %s, i32 0, i32 3, i32 1
  store double 0.5, ptr %f3
  %raw = getelementptr i8, ptr %s, i64 20
  %seven = load i32, ptr %raw
  %all = load { i8, double, [2 x i32], { float, double } }, ptr %s
  %d = extractvalue { i8, double, [2 x i32], { float, double } } %all, 3, 1
  %n = extractvalue { i8, double, [2 x i32], { float, double } } %all, 2, 1
  %all2 = insertvalue { i8, double, [2 x i32], { float, double } } %all, double 3.0, 1
  store { i8, double, [2 x i32], { float, double } } %all2, ptr %s
  %x2 = load double, ptr %f1
  %nf = sitofp i32 %n to double
  %sf = sitofp i32 %seven to double
  %a = fadd double %d, double %nf
  %b = fadd double %a, double %sf
  %c = fmul double %b, double %x2
  %e = fadd double %c, double %x
  ret double %e
}

define i64 @size() {
entry:
  %end = getelementptr { i8, double, [2 x i32], { float, double } }, ptr null, i64 1
  %n = ptrtoint ptr %end to i64
  ret i64 %n
}
"#,
    );
    // (0.5 + 7 + 7) * 3 + x
    assert_eq!(f64_of(it.call("fields", &[Val::f64(1.0)])), 44.5);
    assert_eq!(int_of(it.call("size", &[])), 40);
}

#[test]
fn vectors_lane_by_lane() {
    let mut it = interp(
        r#"
define float @lanes(<4 x float> %v) {
entry:
  %w = fadd <4 x float> %v, <4 x float> <float 1.0, float 2.0, float 3.0, float 4.0>
  %big = fcmp ogt <4 x float> %w, <4 x float> <float 4.0, float 4.0, float 4.0, float 4.0>
  %m = select <4 x i1> %big, <4 x float> %w, <4 x float> zeroinitializer
  %s = shufflevector <4 x float> %m, <4 x float> %v, [3, 4, -1, 0]
  %t = insertelement <4 x float> %s, float 100.0, i32 2
  %slot = alloca <4 x float>
  store <4 x float> %t, ptr %slot
  %p = getelementptr <4 x float>, ptr %slot, i64 0, i64 2
  %hundred = load float, ptr %p
  %a = extractelement <4 x float> %t, i32 0
  %b = extractelement <4 x float> %t, i32 1
  %d = extractelement <4 x float> %t, i32 3
  %ab = fadd float %a, float %b
  %abd = fadd float %ab, float %d
  %r = fadd float %abd, float %hundred
  ret float %r
}

define i64 @bits(<2 x float> %v) {
entry:
  %i = bitcast <2 x float> %v to i64
  ret i64 %i
}
"#,
    );
    let v = Val::Vector([1.0f32, 2.0, 3.0, 5.0].map(Val::f32).to_vec());
    // w = (2, 4, 6, 9); m = (0, 0, 6, 9); s = (9, v0 = 1, 0, 0); t = (9, 1, 100, 0).
    assert_eq!(f64_of(it.call("lanes", &[v])), 110.0);
    let halves = Val::Vector(vec![Val::f32(1.0), Val::f32(-2.0)]);
    let expect = (u64::from((-2.0f32).to_bits()) << 32) | u64::from(1.0f32.to_bits());
    assert_eq!(it.call("bits", &[halves]).unwrap(), Some(Val::int(64, i128::from(expect))));
}

#[test]
fn integers_wrap_and_compare_by_sign() {
    let mut it = interp(
        r#"
define i32 @ints(i8 %a, i8 %b, i32 %x, i32 %y) {
entry:
  %s = add i8 %a, i8 %b
  %sz = zext i8 %s to i32
  %q = sdiv i32 %x, i32 %y
  %r = srem i32 %x, i32 %y
  %uq = udiv i32 %x, i32 %y
  %sh = ashr i32 %x, i32 1
  %lsh = lshr i32 %x, i32 28
  %lt = icmp slt i32 %x, i32 %y
  %ult = icmp ult i32 %x, i32 %y
  %ltz = zext i1 %lt to i32
  %ultz = zext i1 %ult to i32
  %t = trunc i32 %x to i8
  %ts = sext i8 %t to i32
  %k1 = mul i32 %sz, i32 1000000
  %k2 = mul i32 %q, i32 10000
  %k3 = mul i32 %r, i32 1000
  %k4 = mul i32 %ltz, i32 100
  %k5 = mul i32 %ultz, i32 10
  %o1 = add i32 %k1, i32 %k2
  %o2 = add i32 %o1, i32 %k3
  %o3 = add i32 %o2, i32 %k4
  %o4 = add i32 %o3, i32 %k5
  %o5 = add i32 %o4, i32 %ts
  %o6 = add i32 %o5, i32 %sh
  %o7 = add i32 %o6, i32 %lsh
  %o8 = sub i32 %o7, i32 %uq
  ret i32 %o8
}

define i32 @div(i32 %x, i32 %y) {
entry:
  %q = udiv i32 %x, i32 %y
  ret i32 %q
}
"#,
    );
    // a + b = 300 wraps to 44; -7 / 2 = -3 rem -1; -7 < 2 signed, not unsigned;
    // trunc(-7) = -7; -7 >> 1 = -4; lshr(-7, 28) = 15; udiv(-7, 2) = 2147483644.
    let got = int_of(it.call("ints", &[Val::int(8, 200), Val::int(8, 100), Val::i32(-7), Val::i32(2)]));
    let want = (44_000_000i64 - 30_000 - 1000 + 100 - 7 - 4 + 15 - 2_147_483_644) as i32;
    assert_eq!(got, i128::from(want));
    assert_eq!(it.call("div", &[Val::i32(1), Val::i32(0)]), Err(InterpError::DivisionByZero));
}

#[test]
fn float_predicates_and_casts() {
    let mut it = interp(
        r#"
define i32 @preds(double %x, double %y) {
entry:
  %a = fcmp olt double %x, double %y
  %b = fcmp ult double %x, double %y
  %c = fcmp uno double %x, double %y
  %d = fcmp one double %x, double %y
  %e = fcmp une double %x, double %y
  %a1 = zext i1 %a to i32
  %b1 = zext i1 %b to i32
  %c1 = zext i1 %c to i32
  %d1 = zext i1 %d to i32
  %e1 = zext i1 %e to i32
  %b2 = shl i32 %b1, i32 1
  %c2 = shl i32 %c1, i32 2
  %d2 = shl i32 %d1, i32 3
  %e2 = shl i32 %e1, i32 4
  %r1 = or i32 %a1, i32 %b2
  %r2 = or i32 %r1, i32 %c2
  %r3 = or i32 %r2, i32 %d2
  %r4 = or i32 %r3, i32 %e2
  ret i32 %r4
}

define double @casts(double %x) {
entry:
  %f = fptrunc double %x to float
  %g = fpext float %f to double
  %i = fptosi double %x to i32
  %u = uitofp i32 %i to double
  %h = fadd double %g, double %u
  %r = frem double %h, double 4.0
  %n = fneg double %r
  ret double %n
}
"#,
    );
    let preds = |it: &mut Interpreter, x: f64, y: f64| int_of(it.call("preds", &[Val::f64(x), Val::f64(y)]));
    assert_eq!(preds(&mut it, 1.0, 2.0), 0b11011);
    assert_eq!(preds(&mut it, 2.0, 2.0), 0b00000);
    assert_eq!(preds(&mut it, f64::NAN, 2.0), 0b10110);
    // f32(2.7) + 2 = 4.7000000476837158, frem 4 = 0.70000004768..., negated.
    let want = -((f64::from(2.7f32) + 2.0) % 4.0);
    assert_eq!(f64_of(it.call("casts", &[Val::f64(2.7)])), want);
}

#[test]
fn calls_direct_indirect_and_math() {
    let mut it = interp(
        r#"
declare double @sin(double)
declare float @cosf(float)
declare double @llvm.fma.f64(double, double, double)
declare double @llvm.maxnum.f64(double, double)
declare double @llvm.powi.f64.i32(double, i32)
declare <2 x double> @llvm.sqrt.v2f64(<2 x double>)

define double @sq(double %x) {
entry:
  %y = fmul double %x, double %x
  ret double %y
}

define double @cube(double %x) {
entry:
  %y = call double @sq(double %x)
  %z = fmul double %y, double %x
  ret double %z
}

define double @calls(double %x, i1 %which) {
entry:
  %fn = select i1 %which, ptr @sq, ptr @cube
  %a = call double %fn(double %x)
  %s = call double @sin(double %x)
  %f = fptrunc double %x to float
  %c = call float @cosf(float %f)
  %cd = fpext float %c to double
  %m = call double @llvm.fma.f64(double %a, double %s, double %cd)
  %p = call double @llvm.powi.f64.i32(double %x, i32 3)
  %q = call double @llvm.maxnum.f64(double %m, double %p)
  %v0 = insertelement <2 x double> zeroinitializer, double %q, i32 0
  %v1 = call <2 x double> @llvm.sqrt.v2f64(<2 x double> %v0)
  %r = extractelement <2 x double> %v1, i32 0
  ret double %r
}
"#,
    );
    for (x, which) in [(0.5f64, true), (1.5, false), (2.0, true)] {
        let a = if which { x * x } else { x * x * x };
        let m = a.mul_add(f64::sin(x), f64::from(f64::from(x as f32).cos() as f32));
        let want = m.max(x.powi(3)).sqrt();
        assert_eq!(f64_of(it.call("calls", &[Val::f64(x), Val::bool(which)])), want, "{x}");
    }
}

#[test]
fn heap_memory_and_copies() {
    let mut it = interp(
        r#"
declare ptr @malloc(i64)
declare ptr @realloc(ptr, i64)
declare void @free(ptr)
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)
declare ptr @memset(ptr, i32, i64)

define double @heap(ptr %src) {
entry:
  %a = call ptr @malloc(i64 16)
  call void @llvm.memcpy.p0.p0.i64(ptr %a, ptr %src, i64 16, i1 false)
  %b = call ptr @realloc(ptr %a, i64 32)
  %hi = getelementptr double, ptr %b, i64 2
  %z = call ptr @memset(ptr %hi, i32 0, i64 16)
  store double 4.0, ptr %hi
  %p1 = getelementptr double, ptr %b, i64 1
  %x1 = load double, ptr %p1
  %x2 = load double, ptr %hi
  %old = atomicrmw fadd ptr %p1, double %x2 monotonic
  %x3 = load double, ptr %p1
  %s = fadd double %x1, double %x3
  call void @free(ptr %b)
  ret double %s
}

define double @dangling(ptr %src) {
entry:
  %a = call ptr @malloc(i64 8)
  call void @free(ptr %a)
  %x = load double, ptr %a
  ret double %x
}

define void @twice() {
entry:
  %a = call ptr @malloc(i64 8)
  call void @free(ptr %a)
  call void @free(ptr %a)
  ret void
}

define ptr @slot() {
entry:
  %a = alloca double
  ret ptr %a
}
"#,
    );
    let src = it.alloc_f64s(&[1.0, 2.0]).unwrap();
    let before = it.memory().live_heap_bytes();
    assert_eq!(f64_of(it.call("heap", std::slice::from_ref(&src))), 2.0 + 6.0);
    assert_eq!(it.memory().live_heap_bytes(), before, "everything allocated is freed");
    assert!(matches!(it.call("dangling", &[src]), Err(InterpError::BadAccess { reason: "freed memory", .. })));
    assert!(matches!(it.call("twice", &[]), Err(InterpError::BadFree(_))));
    // A stack slot dies with its call.
    let slot = it.call("slot", &[]).unwrap().unwrap().as_ptr().unwrap();
    assert!(it.load(slot, &Type::F64).is_err());
    assert!(matches!(it.load(0, &Type::F64), Err(InterpError::BadAccess { reason: "null", .. })));
}

#[test]
fn globals_and_switch() {
    let mut it = interp(
        r#"
define i32 @count(i32 %k) {
entry:
  %old = load i32, ptr @counter
  %new = add i32 %old, i32 1
  store i32 %new, ptr @counter
  switch i32 %k, label %other [ i32 0, label %zero  i32 7, label %seven ]
zero:
  ret i32 100
seven:
  ret i32 %new
other:
  ret i32 -1
}
"#,
    );
    assert!(matches!(it.call("count", &[Val::i32(0)]), Err(InterpError::UnknownGlobal(g)) if g == "counter"));
    let addr = it.define_global("counter", &Type::I32).unwrap();
    assert_eq!(int_of(it.call("count", &[Val::i32(0)])), 100);
    assert_eq!(int_of(it.call("count", &[Val::i32(3)])), -1);
    assert_eq!(int_of(it.call("count", &[Val::i32(7)])), 3);
    assert_eq!(it.load(addr, &Type::I32).unwrap(), Val::i32(3));
}

#[test]
fn runs_that_stop() {
    let mut it = interp(
        r#"
declare double @mystery(double)
declare void @llvm.trap()

define void @forever() {
entry:
  br label %loop
loop:
  br label %loop
}

define double @unknown(double %x) {
entry:
  %y = call double @mystery(double %x)
  ret double %y
}

define void @trap() {
entry:
  call void @llvm.trap()
  unreachable
}

define void @dead() {
entry:
  unreachable
}

define x86_fp80 @long(double %x) {
entry:
  %y = fpext double %x to x86_fp80
  ret x86_fp80 %y
}

define double @deep(double %x) {
entry:
  %y = call double @deep(double %x)
  ret double %y
}
"#,
    );
    it.set_step_limit(10_000);
    assert_eq!(it.call("forever", &[]), Err(InterpError::StepLimit(10_000)));
    assert_eq!(it.steps(), 10_001);
    assert_eq!(it.call("unknown", &[Val::f64(1.0)]), Err(InterpError::UnknownCall("mystery".into())));
    assert_eq!(it.call("trap", &[]), Err(InterpError::Trap));
    assert_eq!(it.call("dead", &[]), Err(InterpError::Unreachable("dead".into())));
    assert!(matches!(it.call("long", &[Val::f64(1.0)]), Err(InterpError::Unsupported(_))));
    assert!(matches!(it.call("deep", &[Val::f64(1.0)]), Err(InterpError::CallDepth(_))));
}

#[test]
fn ieee_maximum_and_minimum_order_zeros_and_propagate_nan() {
    let mut it = interp(
        r#"
declare double @llvm.maximum.f64(double, double)
declare double @llvm.minimum.f64(double, double)
declare double @llvm.maxnum.f64(double, double)

define double @max(double %x, double %y) {
entry:
  %r = call double @llvm.maximum.f64(double %x, double %y)
  ret double %r
}

define double @min(double %x, double %y) {
entry:
  %r = call double @llvm.minimum.f64(double %x, double %y)
  ret double %r
}

define double @maxnum(double %x, double %y) {
entry:
  %r = call double @llvm.maxnum.f64(double %x, double %y)
  ret double %r
}
"#,
    );
    let mut call = |f: &str, x: f64, y: f64| f64_of(it.call(f, &[Val::f64(x), Val::f64(y)]));
    for (x, y) in [(-0.0, 0.0), (0.0, -0.0)] {
        let (max, min) = (call("max", x, y), call("min", x, y));
        assert!(max == 0.0 && max.is_sign_positive(), "maximum({x}, {y}) = {max}");
        assert!(min == 0.0 && min.is_sign_negative(), "minimum({x}, {y}) = {min}");
    }
    assert_eq!(call("max", 1.5, -2.0), 1.5);
    assert_eq!(call("min", 1.5, -2.0), -2.0);
    assert!(call("max", f64::NAN, 1.0).is_nan() && call("min", 1.0, f64::NAN).is_nan());
    // maxNum, by contrast, gives the number beside a NaN.
    assert_eq!(call("maxnum", f64::NAN, 1.0), 1.0);
}
