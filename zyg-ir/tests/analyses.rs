//! Dominators, post-dominators and loops on small CFGs written in the text form.

use zyg_ir::cfg::ControlFlowGraph;
use zyg_ir::dominance::{DominatorTree, PostDominatorTree};
use zyg_ir::loops::LoopAnalysis;
use zyg_ir::text::parse_module;
use zyg_ir::{Block, Function};

struct Analysed {
    f: Function,
    cfg: ControlFlowGraph,
    dom: DominatorTree,
    pdom: PostDominatorTree,
    loops: LoopAnalysis,
}

impl Analysed {
    fn block(&self, name: &str) -> Block {
        *self.f.layout.iter().find(|b| self.f.blocks[**b].name.as_deref() == Some(name)).expect(name)
    }
}

fn analyse(body: &str) -> Analysed {
    let text = format!("define void @f(i1 %c, i1 %d) {{\n{body}\n}}\n");
    let f = parse_module(&text).unwrap_or_else(|e| panic!("{e}")).functions.remove(0);
    let cfg = ControlFlowGraph::compute(&f);
    let dom = DominatorTree::compute(&f, &cfg);
    let pdom = PostDominatorTree::compute(&f, &cfg);
    let loops = LoopAnalysis::compute(&f, &cfg, &dom);
    Analysed { f, cfg, dom, pdom, loops }
}

#[test]
fn diamond() {
    let a = analyse("entry:\n br i1 %c, label %l, label %r\nl:\n br label %join\nr:\n br label %join\njoin:\n ret void");
    let [entry, l, r, join] = ["entry", "l", "r", "join"].map(|n| a.block(n));
    assert_eq!(a.dom.idom(join), Some(entry));
    assert_eq!(a.dom.idom(l), Some(entry));
    assert!(a.dom.dominates(entry, join) && !a.dom.dominates(l, join) && a.dom.dominates(join, join));
    assert_eq!(a.pdom.ipdom(entry), Some(join));
    assert_eq!(a.pdom.ipdom(l), Some(join));
    assert!(a.pdom.post_dominates(join, entry) && !a.pdom.post_dominates(l, entry));
    assert_eq!(a.cfg.preds(join), &[l, r]);
    assert!(a.loops.loops().is_empty() && a.loops.is_reducible());
    assert!(!a.loops.may_repeat(join));
    let mut children = a.dom.children(entry).to_vec();
    children.sort();
    assert_eq!(children.len(), 3);
}

#[test]
fn nested_loops_with_two_latches_and_exits() {
    let a = analyse(
        "entry:\n br label %outer\n\
         outer:\n br label %inner\n\
         inner:\n br i1 %c, label %inner, label %latch\n\
         latch:\n br i1 %d, label %outer, label %side\n\
         side:\n br i1 %c, label %outer, label %exit\n\
         exit:\n ret void",
    );
    let [entry, outer, inner, latch, side, exit] = ["entry", "outer", "inner", "latch", "side", "exit"].map(|n| a.block(n));
    assert_eq!(a.loops.loops().len(), 2);
    let outer_loop = &a.loops.loops()[a.loops.innermost(outer).unwrap()];
    assert_eq!(outer_loop.header, outer);
    let mut latches = outer_loop.latches.clone();
    latches.sort();
    assert_eq!(latches, vec![latch, side]);
    assert_eq!(outer_loop.exits, vec![exit]);
    let inner_loop = &a.loops.loops()[a.loops.innermost(inner).unwrap()];
    assert_eq!(inner_loop.header, inner);
    assert_eq!(inner_loop.parent, a.loops.innermost(outer));
    assert_eq!((a.loops.depth(entry), a.loops.depth(outer), a.loops.depth(inner), a.loops.depth(exit)), (0, 1, 2, 0));
    assert!(a.loops.may_repeat(inner) && a.loops.may_repeat(side) && !a.loops.may_repeat(exit));
    assert!(a.loops.is_reducible());
    assert_eq!(a.pdom.ipdom(inner), Some(latch));
    assert_eq!(a.pdom.ipdom(outer), Some(inner));
}

#[test]
fn irreducible_cycle_is_found() {
    // Two entries into the cycle a <-> b: neither header dominates the other.
    let a = analyse(
        "entry:\n br i1 %c, label %a, label %b\n\
         a:\n br i1 %d, label %b, label %exit\n\
         b:\n br i1 %d, label %a, label %exit\n\
         exit:\n ret void",
    );
    let [a_, b_, exit] = ["a", "b", "exit"].map(|n| a.block(n));
    assert!(!a.loops.is_reducible());
    assert!(a.loops.may_repeat(a_) && a.loops.may_repeat(b_));
    assert!(!a.loops.may_repeat(exit));
}

#[test]
fn self_loop_and_unreachable_block() {
    let a =
        analyse("entry:\n br label %spin\nspin:\n br i1 %c, label %spin, label %done\ndone:\n ret void\nlost:\n br label %done");
    let [spin, done, lost] = ["spin", "done", "lost"].map(|n| a.block(n));
    assert!(a.loops.may_repeat(spin) && !a.loops.may_repeat(done));
    assert!(!a.cfg.is_reachable(lost));
    assert_eq!(a.cfg.preds(done), &[spin], "unreachable predecessors are left out");
    assert!(!a.dom.dominates(lost, done) && !a.dom.dominates(done, lost));
    assert_eq!(a.cfg.reverse_postorder().len(), 3);
}
