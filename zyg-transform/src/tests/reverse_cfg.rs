//! The reversed CFG (`reverse_cfg::plan`) of small functions: where the adjoint starts, how
//! each adjoint block picks the predecessor the primal came from, and where counted loops
//! get their trip counts.

use super::common::module_of;

use crate::reverse_cfg::{self, Next, ReversedCfg, Start, Taken, Trips};
use crate::ArgActivity::{Active, Const};
use crate::{ArgActivity, Differentiator, Spec};
use zyg_ir::Block;

/// The reversed CFG of `@f` in `text`, and its blocks in layout order.
fn reversed(text: &str, args: Vec<ArgActivity>) -> (ReversedCfg, Vec<Block>) {
    let m = module_of(text);
    let f = m.functions.iter().find(|f| f.name == "f").expect("@f");
    let mut d = Differentiator::new(&m, "zyg");
    let plan = d.plan(f, &Spec::new("f", args), crate::Mode::Reverse).unwrap_or_else(|e| panic!("{e}"));
    (reverse_cfg::plan(&plan), f.layout.clone())
}

#[test]
fn straight_line_starts_at_its_return_and_ends_at_the_exit() {
    let (r, blocks) =
        reversed("define double @f(double %x) {\nentry:\n  %y = fmul double %x, double %x\n  ret double %y\n}\n", vec![Active]);
    assert!(matches!(r.start, Start::Block(b) if b == blocks[0]));
    assert_eq!(r.layout, blocks);
    assert!(matches!(r.blocks[blocks[0]].next, Next::Exit));
    assert!(r.counted.is_empty());
}

const DIAMOND: &str = r#"
define double @f(double %x) {
entry:
  %pos = fcmp ogt double %x, double 0.0
  br i1 %pos, label %then, label %else
then:
  %a = fmul double %x, double %x
  br label %join
else:
  %b = fmul double %x, double 3.0
  br label %join
join:
  %r = phi double [ %a, %then ], [ %b, %else ]
  ret double %r
}
"#;

#[test]
fn a_join_reads_the_predecessor_from_the_tape() {
    let (r, b) = reversed(DIAMOND, vec![Active]);
    let [entry, then, other, join] = [b[0], b[1], b[2], b[3]];
    assert!(matches!(r.start, Start::Block(s) if s == join));
    match &r.blocks[join].next {
        Next::Branch { preds, taken: Taken::Recorded } => {
            let mut preds = preds.clone();
            preds.sort_unstable();
            assert_eq!(preds, vec![then, other]);
        }
        _ => panic!("the join has two predecessors, told apart by the recorded id"),
    }
    for arm in [then, other] {
        assert!(matches!(r.blocks[arm].next, Next::Pred(p) if p == entry));
    }
    assert!(matches!(r.blocks[entry].next, Next::Exit));
    // Filled in reverse postorder, laid out in postorder: the entry first and last.
    assert_eq!(r.walk.first(), Some(&entry));
    assert_eq!(r.layout.last(), Some(&entry));
    assert_eq!(r.layout.first(), Some(&join));
}

#[test]
fn two_returns_record_which_one_ran() {
    let text = r#"
define double @f(double %x) {
entry:
  %pos = fcmp ogt double %x, double 0.0
  br i1 %pos, label %then, label %else
then:
  %a = fmul double %x, double %x
  ret double %a
else:
  %b = fmul double %x, double 3.0
  ret double %b
}
"#;
    let (r, b) = reversed(text, vec![Active]);
    match &r.start {
        Start::Recorded { returns, .. } => {
            let mut returns = returns.clone();
            returns.sort_unstable();
            assert_eq!(returns, vec![b[1], b[2]]);
        }
        _ => panic!("two return blocks: the primal records which one returned"),
    }
}

#[test]
fn a_function_that_never_returns_goes_straight_to_the_exit() {
    let text = "declare void @abort()\n\ndefine double @f(double %x) {\nentry:\n  call void () @abort()\n  unreachable\n}\n";
    let (r, _) = reversed(text, vec![Active]);
    assert!(matches!(r.start, Start::Exit));
}

/// A loop whose trip count follows from its start and bound (`i` from 0 until `i + 1 == n`),
/// and one whose exit depends on a float, which the primal must record.
const LOOPS: &str = r#"
define double @f(double %x, i32 %n) {
entry:
  br label %counted
counted:
  %acc = phi double [ %x, %entry ], [ %acc.next, %counted ]
  %i = phi i32 [ 0, %entry ], [ %i.next, %counted ]
  %acc.next = fmul double %acc, double 1.5
  %i.next = add i32 %i, i32 1
  %last = icmp eq i32 %i.next, i32 %n
  br i1 %last, label %between, label %counted
between:
  br label %floaty
floaty:
  %v = phi double [ %acc.next, %between ], [ %v.next, %floaty ]
  %v.next = fmul double %v, double 0.5
  %big = fcmp ogt double %v.next, double 1.0
  br i1 %big, label %floaty, label %exit
exit:
  ret double %v.next
}
"#;

#[test]
fn counted_headers_count_down_and_their_exits_set_the_counts() {
    let (r, b) = reversed(LOOPS, vec![Active, Const]);
    let [entry, counted, between, floaty, exit] = [b[0], b[1], b[2], b[3], b[4]];
    let mut headers = vec![counted, floaty];
    headers.sort_unstable();
    assert_eq!(r.counted, headers, "both loops have one preheader and one latch");
    for (header, preheader) in [(counted, entry), (floaty, between)] {
        let Next::Branch { preds, taken: Taken::Counted { first, again } } = &r.blocks[header].next else {
            panic!("a counted header counts its visits");
        };
        assert_eq!(preds[*first], preheader, "the last visit came from the preheader");
        assert_eq!(preds[*again], header, "the others from the latch (the header itself)");
    }
    // The adjoint enters each loop where the primal left it: the counted loop's trips
    // are computed from `n`, the float-driven loop's are recorded.
    let entries = |block: Block| r.blocks[block].loop_entries.iter().map(|e| (e.header, e.trips)).collect::<Vec<_>>();
    assert!(entries(between) == vec![(counted, Trips::Computed)]);
    assert!(entries(exit) == vec![(floaty, Trips::Recorded)]);
    assert!(entries(entry).is_empty() && entries(counted).is_empty() && entries(floaty).is_empty());
}
