//! The verifier: valid functions pass (including every instruction kind), and each broken
//! invariant is reported with the instruction that breaks it.

use zyg_ir::text::parse_function;
use zyg_ir::{verify, Function, InstKind, Signature, Type};

fn problems(text: &str) -> String {
    let f = parse_function(text).expect("parses");
    match verify(&f) {
        Ok(()) => String::new(),
        Err(e) => e.to_string(),
    }
}

const LOOP: &str = r#"
define double @pow_loop(double %x, i32 %n) {
entry:
  br label %head
head:
  %i = phi i32 [ 0, %entry ], [ %next, %body ]
  %acc = phi double [ 1.0, %entry ], [ %acc2, %body ]
  %more = icmp slt i32 %i, i32 %n
  br i1 %more, label %body, label %done
body:
  %acc2 = fmul double %acc, double %x
  %next = add i32 %i, i32 1
  br label %head
done:
  ret double %acc
}
"#;

#[test]
fn valid_functions_pass() {
    // (Every instruction kind: `text_form.rs` verifies its module too.)
    assert_eq!(problems(LOOP), "");
}

#[test]
fn a_use_its_definition_does_not_dominate() {
    let text = r#"
define double @f(double %x, i1 %c) {
entry:
  br i1 %c, label %then, label %join
then:
  %y = fmul double %x, double %x
  br label %join
join:
  %z = fadd double %y, double 1.0
  ret double %z
}
"#;
    let e = problems(text);
    assert!(e.contains("does not dominate this use at `%") && e.contains(" = fadd double"), "{e}");
}

#[test]
fn a_phi_whose_blocks_are_not_the_predecessors() {
    let text = r#"
define double @f(double %x, i1 %c) {
entry:
  br i1 %c, label %then, label %join
then:
  br label %join
join:
  %z = phi double [ %x, %then ]
  ret double %z
}
"#;
    let e = problems(text);
    assert!(e.contains("not its block's predecessors") && e.contains("missing [entry]"), "{e}");
}

#[test]
fn mismatched_types() {
    // (The text form refuses most mismatches itself; a phase builds them directly.)
    let mut f = Function::new("f", Signature::new(vec![Type::F64, Type::F32], Type::F64));
    let (x, y) = (f.params[0], f.params[1]);
    let entry = f.create_block(Some("entry".into()));
    let z = f.append_value(entry, InstKind::Binary { op: zyg_ir::BinOp::FAdd, args: [x, y] }, Type::F64);
    f.append_inst(entry, InstKind::Ret { value: Some(z) }, Type::Void);
    let e = verify(&f).unwrap_err().to_string();
    assert!(e.contains("arithmetic"), "{e}");
    let e = problems("define float @f(double %x) {\nentry:\n  ret double %x\n}\n");
    assert!(e.contains("return type"), "{e}");
    let e = problems("define double @f(double %x) {\nentry:\n  %l = load double, double %x\n  ret double %l\n}\n");
    assert!(e.contains("not a pointer"), "{e}");
}

#[test]
fn blocks_without_terminators_and_stray_terminators() {
    let mut f = Function::new("f", Signature::new(vec![Type::F64], Type::F64));
    let x = f.params[0];
    let entry = f.create_block(Some("entry".into()));
    f.append_inst(entry, InstKind::Ret { value: Some(x) }, Type::Void);
    f.append_value(entry, InstKind::Unary { op: zyg_ir::UnOp::FNeg, arg: x }, Type::F64);
    let e = verify(&f).unwrap_err().to_string();
    assert!(e.contains("terminator in the middle") && e.contains("does not end with a terminator"), "{e}");
}

#[test]
fn instructions_in_no_block() {
    let mut f = Function::new("f", Signature::new(vec![Type::F64], Type::F64));
    let x = f.params[0];
    let entry = f.create_block(Some("entry".into()));
    let loose = f.make_inst(InstKind::Unary { op: zyg_ir::UnOp::FNeg, arg: x }, Type::F64);
    let v = f.result(loose).unwrap();
    f.append_inst(entry, InstKind::Ret { value: Some(v) }, Type::Void);
    let e = verify(&f).unwrap_err().to_string();
    assert!(e.contains("in no block"), "{e}");
}
