//! The recompute plan's choices for float values (`recompute::Recompute::try_float`): which
//! values a loop's backpropagators read are rebuilt in the adjoint, and which stay stored.

use super::common::{self, value};

use crate::activity::Activity;
use crate::recompute;
use crate::tape::{self, TapeNeeds};
use crate::ArgActivity::{Active, Const};
use zyg_ir::cfg::ControlFlowGraph;
use zyg_ir::dominance::DominatorTree;
use zyg_ir::loops::LoopAnalysis;
use zyg_ir::Function;

// A counted loop over a[i], b[i]. The backpropagators are taken to read a, b, c (stored
// anyway) and the values listed in `needs` below.
const PROGRAM: &str = r#"
declare double @sqrt(double)

define double @f(ptr %pa, ptr %pb, ptr %pc, double %w, i64 %n) {
entry:
  %w2 = fmul double %w, double 2.0
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %acc = phi double [ 0.0, %entry ], [ %acc.next, %loop ]
  %qa = getelementptr double, ptr %pa, i64 %i
  %a = load double, ptr %qa
  %qb = getelementptr double, ptr %pb, i64 %i
  %b = load double, ptr %qb
  %qc = getelementptr double, ptr %pc, i64 %i
  %c = load double, ptr %qc
  %ab = fmul double %a, double %b
  %abw = fmul double %ab, double %w2
  %quot = fdiv double %a, double %b
  %root = call double (double) @sqrt(double %a)
  %cr = fmul double %c, double %root
  %fi = sitofp i64 %i to double
  %afi = fmul double %a, double %fi
  %neg = fneg double %afi
  %sum = fadd double %abw, double %quot
  %sum2 = fadd double %sum, double %cr
  %sum3 = fadd double %sum2, double %neg
  %acc.next = fadd double %acc, double %sum3
  %i.next = add i64 %i, i64 1
  %done = icmp eq i64 %i.next, i64 %n
  br i1 %done, label %exit, label %loop
exit:
  ret double %acc.next
}
"#;

/// The recompute plan of PROGRAM when the backpropagators read the values the `k`th results
/// (in layout order) define: what is rebuilt, and what stays on the tape.
fn plan_reading(ks: &[usize]) -> (Function, recompute::Recompute, TapeNeeds) {
    let m = common::module_of(PROGRAM);
    let f = &m.functions[0];
    let cfg = ControlFlowGraph::compute(f);
    let loops = LoopAnalysis::compute(f, &cfg, &DominatorTree::compute(f, &cfg));
    let block_of = tape::inst_blocks(f);
    let activity = Activity::analyze(&m, &Default::default(), f, &[Const, Const, Const, Active, Const]).unwrap();
    let mut needs = TapeNeeds { values: ks.iter().map(|k| value(f, *k)).collect(), ..TapeNeeds::default() };
    let r = recompute::plan(f, &cfg, &loops, &block_of, &activity, &Default::default(), &mut needs);
    (f.clone(), r, needs)
}

#[test]
fn cheap_floats_on_stored_operands_are_rebuilt() {
    // Results in layout order: w2 i acc qa a qb b qc c ab abw quot root cr fi afi neg ...
    let (f, r, needs) = plan_reading(&[4, 6, 8, 9, 10, 11, 12, 13, 15, 16]);
    let f = &f;
    let [w2, a, b, c, ab, abw, quot, root, cr, fi, afi, neg] = [0, 4, 6, 8, 9, 10, 11, 12, 13, 14, 15, 16].map(|k| value(f, k));
    // a*b from the stored a and b; (a*b)*w2 from it and w2, which the loop does not
    // change; a*i from a and the induction variable; -(a*i) from that.
    for (v, what) in [(ab, "a*b"), (abw, "a*b*w2"), (afi, "a * (double)i"), (neg, "-(a*i)"), (fi, "(double)i")] {
        assert!(r.values.contains(&v), "{what} is rebuilt");
        assert!(!needs.values.contains(&v), "{what} is not stored");
    }
    // Not cheap: a division, a call; c*sqrt(a) reads the call's result, which is stored,
    // but it is rebuilt all the same from c and it.
    for (v, what) in [(quot, "a/b"), (root, "sqrt(a)")] {
        assert!(!r.values.contains(&v) && needs.values.contains(&v), "{what} is stored");
    }
    assert!(r.values.contains(&cr), "c * sqrt(a) is rebuilt from stored operands");
    // The loads stay on the tape, and w2 goes on it once (it was not there before).
    for (v, what) in [(a, "a"), (b, "b"), (c, "c"), (w2, "w2")] {
        assert!(needs.values.contains(&v), "{what} is stored");
    }
}

#[test]
fn floats_on_loads_not_stored_stay_stored() {
    // Only a*b is read: a and b are not stored for anything else, and a load is never
    // run again in the adjoint (memory may have changed), so a*b stays stored.
    let (f, r, needs) = plan_reading(&[9]);
    let ab = value(&f, 9);
    assert!(!r.values.contains(&ab));
    assert!(needs.values.contains(&ab));
    // Beside it, only the loop's bound (its trip count is computed from it).
    assert_eq!(needs.values, vec![ab, f.params[4]]);
}
