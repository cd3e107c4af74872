//! Text-form tests: parse → print → parse → print is stable on functions covering every
//! instruction kind and CFG shape; literals keep their bits; bad input is a located error.

use super::{parse_function, parse_module, print_function, print_module};
use crate::constant::Constant;
use crate::function::{Function, ValueDef};
use crate::inst::{Callee, InstKind};
use crate::types::{FloatTy, Signature, Type};

/// Parses, prints, parses and prints again; the two printings must agree.
fn round_trip(text: &str) -> String {
    let first = parse_module(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let printed = print_module(&first);
    let second = parse_module(&printed).unwrap_or_else(|e| panic!("{e}\n{printed}"));
    assert_eq!(printed, print_module(&second), "printing is not stable");
    printed
}

fn floats(f: &Function) -> Vec<(FloatTy, u128)> {
    f.values
        .values()
        .filter_map(|v| match &v.def {
            ValueDef::Const(Constant::Float { ty, bits }) => Some((*ty, *bits)),
            _ => None,
        })
        .collect()
}

const MEMORY_AND_AGGREGATES: &str = r#"
declare i32 @printf(ptr, ...)
declare void @"odd name"(ptr addrspace(3))

define internal { double, i32 } @agg(ptr %p, i64 %i, <4 x float> %v) #alwaysinline "target-cpu=x86-64" {
entry:
  %slot = alloca [8 x { double, i32 }]
  %shared = alloca double, addrspace(3)
  %e = getelementptr inbounds [8 x { double, i32 }], ptr %slot, i64 0, i64 %i, i32 1
  %raw = getelementptr i8, ptr %p, i64 -8
  store i32 7, ptr %e
  %old = atomicrmw volatile add ptr %e, i32 1 acq_rel
  %was = atomicrmw umax ptr %e, i32 %old seq_cst
  %pair = cmpxchg weak ptr %e, i32 %old, i32 %was acq_rel monotonic
  %x = load double, ptr %raw
  store double %x, ptr addrspace(3) %shared
  call void @"odd name"(ptr addrspace(3) %shared)
  %n = call i32 (ptr, ...) @printf(ptr @fmt, double %x, i32 3)
  %s0 = insertvalue { double, i32 } undef, double %x, 0
  %s1 = insertvalue { double, i32 } %s0, i32 %n, 1
  %nest = insertvalue { { double, i32 }, [2 x double] } zeroinitializer, double %x, 1, 1
  %back = extractvalue { { double, i32 }, [2 x double] } %nest, 1, 1
  %lane = fcmp ogt <4 x float> %v, <4 x float> zeroinitializer
  %frozen = freeze <4 x i1> %lane
  %q = icmp eq ptr %p, ptr null
  %fn = select i1 %q, ptr @agg, ptr %p
  %r = call { double, i32 } %fn(ptr poison, i64 %i, <4 x float> %v), !loc("agg.c", 12, 5)
  ret { double, i32 } %s1
}
"#;

const ARITHMETIC: &str = r#"
define x86_fp80 @arith(double %x, float %f, i32 %n, i1 %b, i128 %w) {
entry:
  %a = fadd double %x, double 1.5
  %b1 = fsub double %a, double -0.0
  %c = fmul double %b1, double 1e-300
  %d = fdiv double %c, double 0x7FF0000000000000
  %e = frem double %d, double 0x7FF8000000000001
  %g = fneg double %e
  %i = add i32 %n, i32 -2147483648
  %j = sub i32 %i, i32 4294967295
  %k = mul i32 %j, i32 %n
  %l = udiv i32 %k, i32 3
  %m = sdiv i32 %l, i32 3
  %o = urem i32 %m, i32 5
  %p = srem i32 %o, i32 5
  %q = shl i32 %p, i32 2
  %r = lshr i32 %q, i32 1
  %s = ashr i32 %r, i32 1
  %t = and i32 %s, i32 255
  %u = or i32 %t, i32 16
  %v = xor i32 %u, i32 -1
  %w2 = add i128 %w, i128 -170141183460469231731687303715884105728
  %fl = fmul float %f, float 0.1
  %fn = fadd float %fl, float 0x7FC00001
  %c1 = fpext float %fn to double
  %c2 = fptrunc double %g to float
  %c3 = sitofp i32 %v to double
  %c4 = uitofp i32 %v to float
  %c5 = fptosi double %c3 to i64
  %c6 = fptoui float %c4 to i16
  %c7 = zext i16 %c6 to i32
  %c8 = sext i16 %c6 to i64
  %c9 = trunc i64 %c8 to i8
  %c10 = bitcast double %c1 to i64
  %c11 = inttoptr i64 %c10 to ptr
  %c12 = ptrtoint ptr %c11 to i64
  %c13 = addrspacecast ptr %c11 to ptr addrspace(1)
  %ld = fpext double %c1 to x86_fp80
  %ld2 = fmul x86_fp80 %ld, x86_fp80 0xK3FFF8000000000000000
  %sel = select i1 %b, x86_fp80 %ld2, x86_fp80 0xK00000000000000000001
  ret x86_fp80 %sel
}
"#;

const PREDICATES: &str = r#"
define i1 @preds(double %x, double %y, i32 %a, i32 %b) {
entry:
  %f0 = fcmp false double %x, double %y
  %f1 = fcmp oeq double %x, double %y
  %f2 = fcmp ogt double %x, double %y
  %f3 = fcmp oge double %x, double %y
  %f4 = fcmp olt double %x, double %y
  %f5 = fcmp ole double %x, double %y
  %f6 = fcmp one double %x, double %y
  %f7 = fcmp ord double %x, double %y
  %f8 = fcmp uno double %x, double %y
  %f9 = fcmp ueq double %x, double %y
  %f10 = fcmp ugt double %x, double %y
  %f11 = fcmp uge double %x, double %y
  %f12 = fcmp ult double %x, double %y
  %f13 = fcmp ule double %x, double %y
  %f14 = fcmp une double %x, double %y
  %f15 = fcmp true double %x, double %y
  %i0 = icmp eq i32 %a, i32 %b
  %i1 = icmp ne i32 %a, i32 %b
  %i2 = icmp ugt i32 %a, i32 %b
  %i3 = icmp uge i32 %a, i32 %b
  %i4 = icmp ult i32 %a, i32 %b
  %i5 = icmp ule i32 %a, i32 %b
  %i6 = icmp sgt i32 %a, i32 %b
  %i7 = icmp sge i32 %a, i32 %b
  %i8 = icmp slt i32 %a, i32 %b
  %i9 = icmp sle i32 %a, i32 %b
  ret i1 %i9
}
"#;

/// Nested loops, a switch, several returns, an unreachable block, phis of forward values.
const CONTROL: &str = r#"
declare double @sin(double)

define double @control(double %x, i32 %n, i32 %m) {
entry:
  %s = call double @sin(double %x)
  %neg = fcmp olt double %s, double 0.0
  br i1 %neg, label %early, label %outer
early:
  ret double 0.0
outer:
  %i = phi i32 [ 0, %entry ], [ %i.next, %outer.latch ]
  %acc = phi double [ %s, %entry ], [ %acc.inner, %outer.latch ]
  br label %inner
inner:
  %j = phi i32 [ 0, %outer ], [ %j.next, %inner ]
  %acc.inner = phi double [ %acc, %outer ], [ %acc.next, %inner ]
  %acc.next = fmul double %acc.inner, double 0.5
  %j.next = add i32 %j, i32 1
  %more = icmp slt i32 %j.next, i32 %m
  br i1 %more, label %inner, label %outer.latch
outer.latch:
  %i.next = add i32 %i, i32 1
  switch i32 %i.next, label %outer [ i32 3, label %done  i32 5, label %other  i32 -1, label %dead ]
other:
  ret double %acc.inner
dead:
  unreachable
done:
  ret double %acc.inner
}

define void @empty() {
  ret void
}
"#;

#[test]
fn every_instruction_kind_round_trips() {
    let printed = [MEMORY_AND_AGGREGATES, ARITHMETIC, PREDICATES, CONTROL].map(round_trip).join("\n");
    let module = parse_module(&printed).unwrap();
    let mut seen = std::collections::HashSet::new();
    for f in &module.functions {
        for (_, inst) in f.inst_order() {
            seen.insert(f.insts[inst].kind.opcode_name());
            if let InstKind::Cast { op, .. } = &f.insts[inst].kind {
                seen.insert(op.name());
            }
        }
    }
    for name in crate::inst::BinOp::ALL.iter().map(|o| o.name()).chain(crate::inst::CastOp::ALL.iter().map(|o| o.name())) {
        assert!(seen.contains(name), "no `{name}` in the tests");
    }
    for name in ["fneg", "freeze", "fcmp", "icmp", "select", "phi", "call", "alloca", "load", "store", "getelementptr"] {
        assert!(seen.contains(name), "no `{name}` in the tests");
    }
    for name in ["extractvalue", "insertvalue", "br", "switch", "ret", "unreachable"] {
        assert!(seen.contains(name), "no `{name}` in the tests");
    }
}

#[test]
fn printed_form_reads_like_llvm() {
    let printed = round_trip(&format!("{MEMORY_AND_AGGREGATES}{CONTROL}"));
    for needle in [
        "declare void @\"odd name\"(ptr addrspace(3))",
        "declare i32 @printf(ptr, ...)",
        "define internal { double, i32 } @agg(ptr %0, i64 %1, <4 x float> %2) #alwaysinline \"target-cpu=x86-64\" {",
        "= alloca double, addrspace(3)",
        "= getelementptr inbounds [8 x { double, i32 }], ptr ",
        "call void @\"odd name\"(ptr addrspace(3) %",
        "= call i32 (ptr, ...) @printf(ptr @fmt, double %",
        "= call double @sin(double %0)",
        ", !loc(\"agg.c\", 12, 5)",
        "= fcmp ogt <4 x float> %2, <4 x float> zeroinitializer",
        "= freeze <4 x i1> %",
        "= extractvalue { { double, i32 }, [2 x double] } %",
        ", 1, 1",
        "switch i32 %",
        "i32 -1, label %dead ]",
        "outer.latch:",
        "unreachable",
        "define void @empty() {\nbb0:\n  ret void\n}",
    ] {
        assert!(printed.contains(needle), "missing `{needle}` in\n{printed}");
    }
}

#[test]
fn llvm_spellings_are_accepted() {
    let f = parse_function(
        "define double @f(double %x, ptr %p) nounwind {\n\
         entry:\n\
           %a = fadd fast double %x, 2.0\n\
           %c = fcmp nnan olt double %a, 0.0\n\
           %y = tail call double @llvm.sin.f64(double %a)\n\
           store double %y, ptr %p, align 8\n\
           %i = add nsw i32 1, 2\n\
           br i1 %c, label %1, label %bb9\n\
         1:\n  ret double %a\n\
         bb9:\n  ret double %y\n}\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(f.attributes, ["nounwind"]);
    let call = f.inst_order().find_map(|(_, i)| match &f.insts[i].kind {
        InstKind::Call { callee: Callee::Direct(name), sig, .. } => Some((name.to_string(), sig.clone())),
        _ => None,
    });
    assert_eq!(call, Some(("llvm.sin.f64".into(), Signature::new(vec![Type::F64], Type::F64))));
    // Numbered labels and `bbN` name no block.
    assert!(f.layout[1..].iter().all(|b| f.blocks[*b].name.is_none()));
}

#[test]
fn floats_and_integers_keep_their_bits() {
    let printed = round_trip(ARITHMETIC);
    assert!(printed.contains("float 0.1"), "{printed}");
    assert!(printed.contains("double -0.0") && printed.contains("double 1e-300"), "{printed}");
    assert!(printed.contains("float 0x7FC00001") && printed.contains("double 0x7FF8000000000001"), "{printed}");
    assert!(printed.contains("i32 -2147483648") && printed.contains("i32 -1\n"), "{printed}");
    assert!(printed.contains("i128 -170141183460469231731687303715884105728"), "{printed}");
    let f = parse_function(&printed).unwrap();
    let bits = floats(&f);
    assert!(bits.contains(&(FloatTy::F32, u128::from(0.1f32.to_bits()))));
    assert!(bits.contains(&(FloatTy::F32, 0x7FC0_0001)));
    assert!(bits.contains(&(FloatTy::F64, (-0.0f64).to_bits().into())));
    assert!(bits.contains(&(FloatTy::X86Fp80, 1)));
    // LLVM writes a float as the hex of the equal double; it must be exact.
    let f = parse_function("define float @f() {\n  ret float 0x3FB99999A0000000\n}").unwrap();
    assert_eq!(floats(&f), [(FloatTy::F32, u128::from(0.1f32.to_bits()))]);
    let inexact = parse_function("define float @f() {\n  ret float 0x3FB999999999999A\n}").unwrap_err();
    assert!(inexact.message.contains("not a constant of type float"), "{inexact}");
}

#[test]
fn values_print_by_entity_number() {
    let mut f = Function::new("g", Signature::new(vec![Type::F64], Type::F64));
    let entry = f.create_block(Some("entry".into()));
    let two = f.constant_value(Constant::float(FloatTy::F64, 2.0));
    let x = f.params[0];
    let y = f.append_value(entry, InstKind::Binary { op: crate::inst::BinOp::FMul, args: [x, two] }, Type::F64);
    f.append_inst(entry, InstKind::Ret { value: Some(y) }, Type::Void);
    let text = print_function(&f);
    assert_eq!(
        text,
        format!("define double @g(double %0) {{\nentry:\n  {y} = fmul double %0, double 2.0\n  ret double {y}\n}}\n")
    );
    assert_eq!(f.to_string(), text);
    assert_eq!(print_function(&parse_function(&text).unwrap()), text);
}

#[test]
fn labels_fall_back_to_block_numbers() {
    let mut f = Function::new("h", Signature::new(vec![], Type::Void));
    let names = [Some("a"), Some("a"), Some("bb0"), Some("two words"), None];
    let blocks: Vec<_> = names.iter().map(|n| f.create_block(n.map(String::from))).collect();
    for pair in blocks.windows(2) {
        f.append_inst(pair[0], InstKind::Br { dest: pair[1] }, Type::Void);
    }
    f.append_inst(blocks[4], InstKind::Ret { value: None }, Type::Void);
    let text = print_function(&f);
    for label in ["bb0:", "bb1:", "bb2:", "bb3:", "bb4:"] {
        assert!(text.contains(label), "{label} in\n{text}");
    }
    assert_eq!(print_function(&parse_function(&text).unwrap()), text);
}

#[test]
fn forward_references_are_resolved_or_reported() {
    let f = parse_function(
        "define i32 @f() {\nentry:\n  br label %b\nc:\n  ret i32 %v\nb:\n  %v = add i32 1, i32 2\n  br label %c\n}",
    )
    .unwrap();
    assert!(f.values.values().all(|v| v.def != ValueDef::Pending));
    let cases = [
        ("define i32 @f() {\nentry:\n  ret i32 %v\n}", 4, "`%v` is used at 3:11 but never defined"),
        ("define i32 @f() {\nentry:\n  br label %x\n}", 4, "`%x` is used at 3:12 but never defined"),
        ("define i32 @f() {\nentry:\n  br label %b\nc:\n  ret i32 %v\nb:\n  %v = fadd double 1.0, double 2.0\n  br label %c\n}", 7, "has type i32, not double"),
        ("define void @f(i32 %a, i32 %a) {\n  ret void\n}", 1, "named twice"),
        ("define void @f() {\nentry:\n  ret void\nentry:\n  ret void\n}", 4, "defined twice"),
    ];
    for (text, line, message) in cases {
        let err = parse_module(text).expect_err(text);
        assert!(err.message.contains(message) && err.line == line, "{err} for\n{text}");
    }
}

#[test]
fn errors_name_the_problem_and_its_place() {
    let cases = [
        ("define void @f() {\nentry:\n  %x = fadd double 1.0, double 2.0\n}", 4, 1, "does not end in a terminator"),
        ("define void @f() {\nentry:\n  ret void\n  ret void\n}", 4, 3, "needs a new `label:`"),
        ("define i8 @f() {\n  ret i8 300\n}", 2, 10, "`300` is not a constant of type i8"),
        ("define double @f() {\n  ret double 0x123456789ABCDEF01\n}", 2, 14, "not a constant of type double"),
        ("define void @f() {\n  %x = store i32 1, ptr null\n  ret void\n}", 2, 3, "produces no value"),
        ("define void @f() {\n  %x = extractvalue { i32 } zeroinitializer, 1\n  ret void\n}", 2, 44, "indices"),
        ("define void @f() {\n  call void @g(i32 1)\n  call void (double) @g(i32 1)\n  ret void\n}", 3, 22, "do not match"),
        ("define void @f() {\n  ret void\n", 3, 1, "expected `}` to close the function, found the end of the input"),
        ("declare [4 x void] @g()", 1, 9, "aggregate of `void`"),
        ("define void @f() {\n  ret void\n}\ndefine void @f() {\n  ret void\n}", 4, 1, "defined twice"),
        ("define void @f() {\n  switch i32 0, label %a [ i64 1, label %a ]\na:\n  ret void\n}", 2, 28, "must have type i32"),
    ];
    for (text, line, column, message) in cases {
        let err = parse_module(text).expect_err(text);
        assert!(err.message.contains(message), "{err} for\n{text}");
        assert_eq!((err.line, err.column), (line, column), "{err} for\n{text}");
    }
}

#[test]
fn garbage_is_an_error_not_a_panic() {
    let corpus = [MEMORY_AND_AGGREGATES, ARITHMETIC, PREDICATES, CONTROL].concat();
    let bytes = corpus.as_bytes();
    // Truncations all through the corpus.
    for cut in (0..bytes.len()).step_by(3) {
        let _ = parse_module(&String::from_utf8_lossy(&bytes[..cut]));
    }
    // Random single-byte and token splices, from a fixed-seed generator.
    let mut state: u64 = 0x2545_F491_4F6C_DD1D;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state as usize
    };
    let alphabet = b"%@#!\"\\{}[]()<>,=:*.x0-+9 \n;iKd";
    for _ in 0..2000 {
        let mut text = bytes.to_vec();
        for _ in 0..1 + next() % 4 {
            let at = next() % text.len();
            match next() % 3 {
                0 => text[at] = alphabet[next() % alphabet.len()],
                1 => drop(text.remove(at)),
                _ => text.insert(at, alphabet[next() % alphabet.len()]),
            }
        }
        let _ = parse_module(&String::from_utf8_lossy(&text));
    }
    // Deep nesting is refused before it can exhaust the stack.
    let deep = format!("declare {}double{} @g()", "{ [1 x <1 x ".repeat(20_000), "> ] }".repeat(20_000));
    assert!(parse_module(&deep).unwrap_err().message.contains("nest"));
    for junk in ["", "}", "define", "define void @f(", "define void @f() {", "@\"\\zz\"", "%", "declare i0 @g()", "\u{0}"] {
        let _ = parse_module(junk);
    }
}

#[test]
fn module_doc_example_reads_back() {
    let doc = include_str!("mod.rs");
    let example: String = doc
        .lines()
        .skip_while(|l| !l.starts_with("//! ```text"))
        .skip(1)
        .take_while(|l| !l.starts_with("//! ```"))
        .map(|l| format!("{}\n", l.trim_start_matches("//!").trim_start_matches(' ')))
        .collect();
    let printed = round_trip(&example);
    assert!(printed.contains("define internal double @f(double %0, i32 %1) #alwaysinline {"), "{printed}");
}
