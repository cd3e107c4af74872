//! The text form: parse → print → parse → print is stable, on functions that use every
//! instruction kind; bad input is an error with a position, never a panic.

use zyg_ir::text::{parse_module, print_module};

const EVERYTHING: &str = r#"
declare double @sin(double)
declare i32 @printf(ptr, ...)

define internal double @all(double %x, i32 %n, ptr %p, float %f) #alwaysinline #nounwind {
entry:
  %a = fadd double %x, double 1.5
  %b = fsub double %a, double -0.25
  %c = fmul double %b, double 1e-5
  %d = fdiv double %c, double 0x7FF0000000000000
  %e = frem double %d, double 3.0
  %g = fneg double %e
  %h = freeze double %g
  %i = add i32 %n, i32 1
  %j = sub i32 %i, i32 -7
  %k = mul i32 %j, i32 %n
  %l = sdiv i32 %k, i32 3
  %m = udiv i32 %l, i32 3
  %o = srem i32 %m, i32 5
  %q = urem i32 %o, i32 5
  %r = shl i32 %q, i32 2
  %s = lshr i32 %r, i32 1
  %t = ashr i32 %s, i32 1
  %u = and i32 %t, i32 255
  %v = or i32 %u, i32 16
  %w = xor i32 %v, i32 3
  %x1 = sitofp i32 %w to double
  %x2 = uitofp i32 %w to float
  %x3 = fpext float %x2 to double
  %x4 = fptrunc double %x3 to float
  %x5 = fptosi double %x1 to i64
  %x6 = fptoui float %x4 to i16
  %x7 = zext i16 %x6 to i32
  %x8 = sext i16 %x6 to i64
  %x9 = trunc i64 %x8 to i8
  %y1 = ptrtoint ptr %p to i64
  %y2 = inttoptr i64 %y1 to ptr
  %y3 = addrspacecast ptr %y2 to ptr addrspace(3)
  %y4 = bitcast double %h to i64
  %c1 = fcmp olt double %x1, double %h
  %c2 = fcmp une double %x1, double 0.0
  %c3 = icmp sle i32 %w, i32 %n
  %c4 = icmp ugt i64 %y1, i64 0
  %sel = select i1 %c1, double %x1, double %h
  %call = call double (double) @sin(double %sel)
  %pr = call i32 (ptr, ...) @printf(ptr @fmt, double %call)
  %ind = call double (double) %p(double 2.0)
  %slot = alloca { double, [4 x i32], <2 x float> }
  %fp = getelementptr inbounds { double, [4 x i32], <2 x float> }, ptr %slot, i32 0, i32 1, i64 2
  store i32 %w, ptr %fp
  %ld = load i32, ptr %fp
  %raw = getelementptr i8, ptr %p, i64 -16
  %agg = insertvalue { double, { i32, double } } zeroinitializer, double %call, 0
  %agg2 = insertvalue { double, { i32, double } } %agg, double %x1, 1, 1
  %ex = extractvalue { double, { i32, double } } %agg2, 1, 1
  %nul = icmp eq ptr %p, ptr null
  %un = select i1 %nul, double undef, double poison
  %wide = fpext double %ex to x86_fp80
  %w2 = fadd x86_fp80 %wide, x86_fp80 0xK3FFF8000000000000000
  br i1 %c3, label %loop, label %other
loop:
  %acc = phi double [ %ex, %entry ], [ %next, %loop ], [ %next, %loop ]
  %iv = phi i32 [ 0, %entry ], [ %iv.next, %loop ], [ %iv.next, %loop ]
  %next = fmul double %acc, double 0.5
  %iv.next = add i32 %iv, i32 1
  switch i32 %iv.next, label %exit [ i32 3, label %loop  i32 5, label %loop ]
other:
  br i1 true, label %exit, label %dead
dead:
  unreachable
exit:
  %res = phi double [ %next, %loop ], [ %x1, %other ]
  ret double %res
}

define void @empty() {
bb0:
  ret void
}
"#;

fn round_trip(text: &str) -> String {
    let first = parse_module(text).unwrap_or_else(|e| panic!("{e}"));
    let printed = print_module(&first);
    let second = parse_module(&printed).unwrap_or_else(|e| panic!("{e}\n{printed}"));
    let reprinted = print_module(&second);
    assert_eq!(printed, reprinted, "printing is not stable");
    printed
}

#[test]
fn every_instruction_round_trips() {
    let printed = round_trip(EVERYTHING);
    // Valid zyg-ir too: every instruction kind passes the verifier.
    for f in &parse_module(EVERYTHING).expect("parses").functions {
        zyg_ir::verify(f).unwrap_or_else(|e| panic!("{e}"));
    }
    for needle in [
        "define internal double @all(",
        "#alwaysinline #nounwind",
        "fdiv double",
        "0x7FF0000000000000",
        "addrspacecast ptr",
        "ptr addrspace(3)",
        "call i32 (ptr, ...) @printf(ptr @fmt",
        "getelementptr inbounds { double, [4 x i32], <2 x float> }",
        "insertvalue { double, { i32, double } }",
        ", 1, 1",
        "x86_fp80 0xK3FFF8000000000000000",
        "switch i32",
        "unreachable",
        "ret void",
        "double undef",
        "double poison",
        "ptr null",
        "zeroinitializer",
        "1e-5",
    ] {
        assert!(printed.contains(needle), "missing `{needle}` in\n{printed}");
    }
}

#[test]
fn floats_keep_their_bits() {
    let text = "define float @f(float %x) {\nentry:\n  %y = fmul float %x, float 0.1\n  %z = fadd float %y, float 0x7FC00000\n  ret float %z\n}\n";
    let m = parse_module(&round_trip(text)).unwrap();
    let f = &m.functions[0];
    let consts: Vec<u128> = f
        .values
        .values()
        .filter_map(|v| match &v.def {
            zyg_ir::ValueDef::Const(zyg_ir::Constant::Float { bits, .. }) => Some(*bits),
            _ => None,
        })
        .collect();
    assert!(consts.contains(&u128::from(0.1f32.to_bits())));
    assert!(consts.contains(&0x7FC0_0000));
}

#[test]
fn errors_have_positions() {
    let cases = [
        ("define double @f(double %x) {\nentry:\n  %y = fmul double %x\n}\n", 4, "expected `,`"),
        ("define double @f(double %x) {\nentry:\n  %y = frobnicate double %x\n}\n", 3, "unknown instruction"),
        ("define double @f(double %x) {\nentry:\n  br label %nowhere\n}\n", 4, "never defined"),
        ("define double @f(double %x) {\nentry:\n  ret double %undefined\n}\n", 4, "never defined"),
        ("define double @f(double %x) {\nentry:\n  %y = fadd double %x, double 1.0\n  %y = fadd double %x, double 1.0\n  ret double %y\n}\n", 4, "defined twice"),
        ("define i32 @f(double %x) {\nentry:\n  %y = fadd double %x, i32 %x\n}\n", 3, "has type"),
    ];
    for (text, line, message) in cases {
        let err = parse_module(text).expect_err(text);
        assert_eq!(err.line, line, "{err}");
        assert!(err.message.contains(message), "{err}");
    }
}

#[test]
fn garbage_never_panics() {
    let seeds = [EVERYTHING, "define", "define double @f(", "}{][><,=:*...", "%%%", "@", "#", "declare double @g(double, ...)"];
    for seed in seeds {
        // Every prefix, and every prefix with one byte changed, is an error or a module.
        let bytes = seed.as_bytes();
        for cut in (0..bytes.len()).step_by(7) {
            let prefix = String::from_utf8_lossy(&bytes[..cut]).into_owned();
            let _ = parse_module(&prefix);
            let mut mutated = prefix.into_bytes();
            if let Some(b) = mutated.get_mut(cut / 2) {
                *b = b"%@#{}[](),=:x0- "[cut % 16];
            }
            let _ = parse_module(&String::from_utf8_lossy(&mutated));
        }
    }
}

#[test]
fn vector_instructions_round_trip() {
    let text = "define <2 x double> @v(<2 x double> %a, double %x, i32 %i) {\nentry:\n  \
                %b = insertelement <2 x double> %a, double %x, i32 %i\n  \
                %c = extractelement <2 x double> %b, i64 1\n  \
                %d = shufflevector <2 x double> %b, <2 x double> %a, [3, 0, -1, 1]\n  \
                %e = fmul <2 x double> %a, <2 x double> <double 1.5, double -0.25>\n  \
                %f = fcmp olt <2 x double> %e, <2 x double> zeroinitializer\n  \
                ret <2 x double> %e\n}\n";
    let printed = round_trip(text);
    for needle in [
        "insertelement <2 x double>",
        "extractelement <2 x double>",
        "shufflevector <2 x double>",
        "[3, 0, -1, 1]",
        "<double 1.5, double -0.25>",
    ] {
        assert!(printed.contains(needle), "missing `{needle}` in\n{printed}");
    }
    let m = parse_module(&printed).unwrap();
    let f = &m.functions[0];
    let shuffle = f.inst_order().find(|(_, i)| matches!(f.insts[*i].kind, zyg_ir::InstKind::ShuffleVector { .. }));
    let v = f.result(shuffle.unwrap().1).unwrap();
    assert_eq!(f.ty(v).to_string(), "<4 x double>");
    for bad in [
        "define void @b(<2 x double> %a) {\nentry:\n  %c = shufflevector <2 x double> %a, <2 x double> %a, [4]\n  ret void\n}\n",
        "define void @b(<2 x double> %a) {\nentry:\n  %c = fmul <2 x double> %a, <2 x double> <double 1.0>\n  ret void\n}\n",
    ] {
        assert!(parse_module(bad).is_err(), "{bad}");
    }
}
