//! Activity and tape layout on small functions written in zyg-ir's text form.

use super::common::{self, value};

use crate::activity::Activity;
use crate::tape::{self, Storage, TapeLayout, TapeNeeds};
use crate::ArgActivity::{Active, Const};
use crate::{Differentiator, Spec};
use zyg_ir::cfg::ControlFlowGraph;
use zyg_ir::dominance::DominatorTree;
use zyg_ir::loops::LoopAnalysis;
use zyg_ir::text::parse_module;
use zyg_ir::{InstKind, Module, Type};

const PROGRAM: &str = r#"
declare double @sin(double)

define double @f(double %x, double %k, i32 %n) {
entry:
  %kx = fmul double %k, double 2.0
  %s = call double (double) @sin(double %x)
  %i0 = fptosi double %x to i32
  %useless = fmul double %x, double %x
  br label %loop
loop:
  %acc = phi double [ %s, %entry ], [ %acc.next, %loop ]
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %acc.next = fmul double %acc, double %kx
  %i.next = add i32 %i, i32 1
  %done = icmp sge i32 %i.next, i32 %n
  br i1 %done, label %exit, label %loop
exit:
  ret double %acc.next
}
"#;

fn module() -> Module {
    common::module_of(PROGRAM)
}

#[test]
fn activity_is_varied_and_useful() {
    let m = module();
    let f = &m.functions[0];
    let a = Activity::analyze(&m, &Default::default(), f, &[Active, Const, Const]).unwrap();
    let [kx, s, i0, useless, acc, i, acc_next] = [0, 1, 2, 3, 4, 5, 6].map(|k| value(f, k));
    assert!(a.is_active(f.params[0]), "x is active");
    assert!(!a.is_active(f.params[1]), "k is const");
    assert!(!a.is_active(kx), "k * 2 does not depend on x");
    assert!(a.is_active(s) && a.is_active(acc) && a.is_active(acc_next));
    assert!(!a.is_active(i0) && !a.is_active(i), "integers carry no derivative");
    assert!(!a.is_active(useless), "x * x never reaches the result");
    // With k active too, k * 2 becomes active.
    let both = Activity::analyze(&m, &Default::default(), f, &[Active, Active, Const]).unwrap();
    assert!(both.is_active(kx));
}

#[test]
fn loop_blocks_push_records_and_others_use_slots() {
    let m = module();
    let f = &m.functions[0];
    let cfg = ControlFlowGraph::compute(f);
    let dom = DominatorTree::compute(f, &cfg);
    let loops = LoopAnalysis::compute(f, &cfg, &dom);
    let [acc, kx] = [4, 0].map(|k| value(f, k));
    let returns = tape::return_blocks(f, &cfg);
    let needs = TapeNeeds { values: vec![acc, kx], ..TapeNeeds::default() };
    let layout = TapeLayout::build(f, &cfg, &loops, &needs, &returns);
    let [entry, looping] = [0, 1].map(|k| f.layout[k]);
    assert_eq!(layout.records[&entry].storage, Storage::Once);
    assert_eq!(layout.records[&looping].storage, Storage::Stack);
    // The loop header has the preheader and one latch: instead of a predecessor id per
    // iteration, the loop's exit records how often the header ran, for the adjoint to
    // count down.
    assert!(layout.counted.contains_key(&looping));
    assert!(!layout.records[&looping].fields.contains(&tape::Field::PredId));
    assert!(layout.records.values().any(|r| r.fields.contains(&tape::Field::Trips(looping))));
    assert_eq!(layout.stacks().len(), 1);
    assert_eq!(layout.exit_index, None, "a single return needs no exit id");
}

#[test]
fn differentiator_names_and_signatures() {
    let m = module();
    let mut d = Differentiator::new(&m, "zyg");
    let g = d.gradient(&Spec::new("f", vec![Active, Active, Const])).unwrap();
    assert_eq!(g.name, "f.zyg.grad.aac");
    assert_eq!(g.sig.ret, Type::structure(vec![Type::F64, Type::F64]));
    // Asking again reuses it.
    let again = d.gradient(&Spec::new("f", vec![Active, Active, Const])).unwrap();
    assert_eq!(again.name, g.name);
    let out = d.finish().functions;
    let names: Vec<&str> = out.iter().map(|f| f.name.as_str()).collect();
    for want in ["__zyg_stack_push", "f.zyg.primal.aac", "f.zyg.adjoint.aac", "f.zyg.grad.aac"] {
        assert_eq!(names.iter().filter(|n| **n == want).count(), 1, "{want} in {names:?}");
    }
    let adjoint = out.iter().find(|f| f.name == "f.zyg.adjoint.aac").unwrap();
    assert_eq!(adjoint.sig.params, vec![Type::PTR, Type::F64], "tape and the result's adjoint");
    // The adjoint pops the loop's stack and frees it.
    let calls: Vec<String> = adjoint
        .insts
        .values()
        .filter_map(|i| match &i.kind {
            InstKind::Call { callee: zyg_ir::Callee::Direct(n), .. } => Some(n.to_string()),
            _ => None,
        })
        .collect();
    assert!(calls.contains(&"__zyg_stack_pop".to_string()) && calls.contains(&"__zyg_stack_free".to_string()));
}

#[test]
fn errors_name_the_construct() {
    let m = parse_module(
        "declare double @mystery(double)\n\
         define double @g(double %x, ptr %p) {\nentry:\n  %y = call double (double) @mystery(double %x)\n  ret double %y\n}\n\
         define double @h(double %x, ptr %p) {\nentry:\n  store double %x, ptr %p\n  ret double %x\n}\n\
         define double @r(double %x) {\nentry:\n  %y = call double (double) @r(double %x)\n  ret double %y\n}\n",
    )
    .unwrap();
    let mut d = Differentiator::new(&m, "zyg");
    let e = d.gradient(&Spec::new("g", vec![Active, Const])).unwrap_err();
    assert_eq!(e.callee.as_deref(), Some("mystery"));
    assert!(e.to_string().contains("no derivative is known for `mystery`"), "{e}");
    let e = d.gradient(&Spec::new("h", vec![Active, Const])).unwrap_err();
    assert!(e.to_string().contains("stored to memory"), "{e}");
    // Recursion is differentiated, with heap tapes and a tape-size function.
    let g = d.gradient(&Spec::new("r", vec![Active])).unwrap();
    assert_eq!(g.name, "r.zyg.grad.a");
    let e = d.gradient(&Spec::new("nope", vec![])).unwrap_err();
    assert!(e.to_string().contains("needs the body"), "{e}");
    assert!(d.finish().functions.iter().any(|f| f.name == "r.zyg.tapesize.a"));
}
