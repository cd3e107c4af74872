//! The program's conventions in activity analysis, and the result-seed wrappers, on small
//! functions in zyg-ir's text form.

use super::common::{self, value};

use crate::activity::Activity;
use crate::conventions::Conventions;
use crate::wrap::{with_result, ResultSeed};
use crate::ArgActivity::Active;
use zyg_ir::{InstKind, Module, Type};

const PROGRAM: &str = r#"
declare double @noise(double)

define double @f(double %x) {
entry:
  %n = call double (double) @noise(double %x)
  %y = fmul double %n, double %x
  ret double %y
}

define { double, double } @pair(double %x) {
entry:
  %a = fmul double %x, double %x
  %p0 = insertvalue { double, double } poison, double %a, 0
  %p1 = insertvalue { double, double } %p0, double %x, 1
  ret { double, double } %p1
}

define void @big(ptr %out, double %x) {
entry:
  store double %x, ptr %out
  ret void
}
"#;

fn module() -> Module {
    common::module_of(PROGRAM)
}

#[test]
fn an_inactive_call_varies_nothing() {
    let m = module();
    let f = m.function("f").expect("f");
    let call = f.inst_order().map(|(_, i)| i).next().expect("the call");
    let [n, y] = [0, 1].map(|k| value(f, k));
    let active = Activity::analyze(&m, &Conventions::default(), f, &[Active]).unwrap();
    assert!(active.is_active(n) && active.is_active_inst(f, call), "an unknown call is assumed to pass derivatives");
    let mut conventions = Conventions::default();
    conventions.inactive_functions.insert("noise".into());
    let a = Activity::analyze(&m, &conventions, f, &[Active]).unwrap();
    assert!(!a.is_active(n) && !a.is_active_inst(f, call), "the inactive call's result is a constant");
    assert!(a.is_active(y), "the product still depends on x");
}

#[test]
fn function_like_takes_the_rule() {
    let mut conventions = Conventions::default();
    conventions.function_like.insert("my_log1p".into(), "log1p".into());
    assert_eq!(conventions.math_rule("my_log1p").map(|r| r.names[0]), Some("log1p"));
    assert!(conventions.math_rule("my_other").is_none());
}

#[test]
fn wrappers_seed_the_sum_or_nothing() {
    let mut m = module();
    let sum = with_result(&mut m, "zyg", "pair", ResultSeed::Sum, None).expect("a wrapper");
    let w = m.function(&sum).expect("added");
    assert_eq!(w.sig.ret, Type::F64);
    let adds = w.inst_order().filter(|(_, i)| matches!(w.insts[*i].kind, InstKind::Binary { .. })).count();
    assert_eq!(adds, 2, "0 + a + x");
    let none = with_result(&mut m, "zyg", "pair", ResultSeed::None, None).expect("a wrapper");
    assert!(m.function(&none).expect("added").sig.ret.is_void());
    // Through sret memory: the wrapper allocates the result and drops the parameter.
    let memory = Type::structure(vec![Type::F64, Type::F64]);
    let big = with_result(&mut m, "zyg", "big", ResultSeed::Sum, Some(&memory)).expect("a wrapper");
    let w = m.function(&big).expect("added");
    assert_eq!((w.sig.params.clone(), w.sig.ret.clone()), (vec![Type::F64], Type::F64));
    assert!(w.inst_order().any(|(_, i)| matches!(&w.insts[i].kind, InstKind::Alloca { ty } if *ty == memory)));
    assert!(with_result(&mut m, "zyg", "missing", ResultSeed::Sum, Some(&memory)).is_none());
}
