//! Natural loops (a back edge t → h where h dominates t, and the blocks that reach t
//! without passing h; Aho, Sethi & Ullman 1986, §10.4), their nesting, whether the CFG is
//! reducible, and which blocks can run more than once per call (strongly connected
//! components, Tarjan 1972).

use crate::cfg::ControlFlowGraph;
use crate::dominance::DominatorTree;
use crate::entities::Block;
use crate::function::Function;
use cranelift_entity::{EntitySet, SecondaryMap};

/// One natural loop; all back edges to one header make one loop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Loop {
    pub header: Block,
    /// The loop's blocks in reverse postorder, the header first; nested loops' blocks included.
    pub blocks: Vec<Block>,
    /// The innermost enclosing loop, as an index into `LoopAnalysis::loops`.
    pub parent: Option<usize>,
    /// The sources of the back edges, in layout order.
    pub latches: Vec<Block>,
    /// Blocks outside the loop that an edge from inside leads to.
    pub exits: Vec<Block>,
}

#[derive(Clone, Debug)]
pub struct LoopAnalysis {
    loops: Vec<Loop>,
    innermost: SecondaryMap<Block, Option<usize>>,
    depth: SecondaryMap<Block, u32>,
    reducible: bool,
    in_cycle: SecondaryMap<Block, bool>,
}

impl LoopAnalysis {
    pub fn compute(_func: &Function, cfg: &ControlFlowGraph, dom: &DominatorTree) -> Self {
        let mut loops: Vec<Loop> = Vec::new();
        for &h in cfg.reverse_postorder() {
            let latches: Vec<Block> = cfg.preds(h).iter().copied().filter(|t| dom.dominates(h, *t)).collect();
            if latches.is_empty() {
                continue;
            }
            // Walk backwards from the latches to the header.
            let mut member = EntitySet::new();
            member.insert(h);
            let mut work = latches.clone();
            while let Some(b) = work.pop() {
                if member.insert(b) {
                    work.extend(cfg.preds(b).iter().copied());
                }
            }
            let blocks: Vec<Block> = cfg.reverse_postorder().iter().copied().filter(|b| member.contains(*b)).collect();
            let (mut exits, mut is_exit) = (Vec::new(), EntitySet::new());
            for &b in &blocks {
                for &s in cfg.succs(b) {
                    if !member.contains(s) && is_exit.insert(s) {
                        exits.push(s);
                    }
                }
            }
            loops.push(Loop { header: h, blocks, parent: None, latches, exits });
        }
        // Outer loops have headers earlier in reverse postorder, so they come first; the
        // innermost loop of a block is the last one containing it.
        let mut innermost: SecondaryMap<Block, Option<usize>> = SecondaryMap::new();
        let mut depth: SecondaryMap<Block, u32> = SecondaryMap::new();
        for i in 0..loops.len() {
            let parent = innermost[loops[i].header];
            loops[i].parent = parent;
            for b in loops[i].blocks.clone() {
                innermost[b] = Some(i);
                depth[b] += 1;
            }
        }
        let in_cycle = cycles(cfg);
        let reducible = retreating_edges_are_back_edges(cfg, dom);
        LoopAnalysis { loops, innermost, depth, reducible, in_cycle }
    }

    /// Every natural loop, outer loops before the loops they contain.
    pub fn loops(&self) -> &[Loop] {
        &self.loops
    }

    /// The innermost natural loop containing `b`, as an index into `loops()`.
    pub fn innermost(&self, b: Block) -> Option<usize> {
        self.innermost[b]
    }

    /// How many natural loops contain `b`; 0 outside any loop.
    pub fn depth(&self, b: Block) -> u32 {
        self.depth[b]
    }

    /// False if some cycle is not a natural loop: a retreating edge (one to an ancestor in
    /// the depth-first walk) whose target does not dominate its source. Such cycles have
    /// several entries and make no `Loop`, but `may_repeat` still sees them.
    pub fn is_reducible(&self) -> bool {
        self.reducible
    }

    /// True if `b` can run more than once in one call: it lies on a cycle of the CFG
    /// (a natural loop, or any cycle of an irreducible CFG).
    pub fn may_repeat(&self, b: Block) -> bool {
        self.in_cycle[b]
    }
}

/// Every retreating edge, an edge to a block no later in reverse postorder (Hecht & Ullman
/// 1974), must go to a dominator of its source.
fn retreating_edges_are_back_edges(cfg: &ControlFlowGraph, dom: &DominatorTree) -> bool {
    let mut position: SecondaryMap<Block, usize> = SecondaryMap::new();
    for (i, b) in cfg.reverse_postorder().iter().enumerate() {
        position[*b] = i;
    }
    cfg.reverse_postorder().iter().all(|&b| cfg.succs(b).iter().all(|&s| position[s] > position[b] || dom.dominates(s, b)))
}

/// Blocks on a cycle: members of a strongly connected component with more than one block,
/// or with a self-edge (Tarjan 1972, iteratively).
fn cycles(cfg: &ControlFlowGraph) -> SecondaryMap<Block, bool> {
    let mut index: SecondaryMap<Block, Option<usize>> = SecondaryMap::new();
    let mut low: SecondaryMap<Block, usize> = SecondaryMap::new();
    let mut on_stack: SecondaryMap<Block, bool> = SecondaryMap::new();
    let mut in_cycle: SecondaryMap<Block, bool> = SecondaryMap::new();
    let mut stack: Vec<Block> = Vec::new();
    let mut next = 0;
    for &root in cfg.reverse_postorder() {
        if index[root].is_some() {
            continue;
        }
        let mut work: Vec<(Block, usize)> = vec![(root, 0)];
        index[root] = Some(next);
        low[root] = next;
        next += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(&mut (b, ref mut i)) = work.last_mut() {
            if let Some(&s) = cfg.succs(b).get(*i) {
                *i += 1;
                match index[s] {
                    None => {
                        index[s] = Some(next);
                        low[s] = next;
                        next += 1;
                        stack.push(s);
                        on_stack[s] = true;
                        work.push((s, 0));
                    }
                    Some(si) if on_stack[s] => low[b] = low[b].min(si),
                    _ => {}
                }
            } else {
                work.pop();
                if let Some(&(parent, _)) = work.last() {
                    low[parent] = low[parent].min(low[b]);
                }
                if Some(low[b]) == index[b] {
                    let mut component = Vec::new();
                    while let Some(m) = stack.pop() {
                        on_stack[m] = false;
                        component.push(m);
                        if m == b {
                            break;
                        }
                    }
                    let cyclic = component.len() > 1 || cfg.succs(b).contains(&b);
                    for m in component {
                        in_cycle[m] = cyclic;
                    }
                }
            }
        }
    }
    in_cycle
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cfg::tests::function;

    fn analyse(body: &str) -> (LoopAnalysis, impl Fn(&str) -> Block) {
        let (f, b) = function(body);
        let cfg = ControlFlowGraph::compute(&f);
        let dom = DominatorTree::compute(&f, &cfg);
        (LoopAnalysis::compute(&f, &cfg, &dom), b)
    }

    #[test]
    fn straight_line_and_diamond_have_no_loops() {
        let (la, b) = analyse(
            "entry:
 br i1 %c, label %l, label %r
l:
 br label %j
r:
 br label %j
j:
 ret void",
        );
        assert!(la.loops().is_empty() && la.is_reducible());
        assert!(["entry", "l", "r", "j"].map(&b).iter().all(|x| la.depth(*x) == 0 && !la.may_repeat(*x)));
    }

    #[test]
    fn while_loop() {
        let (la, b) = analyse(
            "entry:
 br label %head
head:
 br i1 %c, label %body, label %exit
body:
 br label %head
exit:
 ret void",
        );
        let [entry, head, body, exit] = ["entry", "head", "body", "exit"].map(&b);
        assert_eq!(
            la.loops(),
            [Loop { header: head, blocks: vec![head, body], parent: None, latches: vec![body], exits: vec![exit] }]
        );
        assert_eq!((la.innermost(body), la.innermost(exit)), (Some(0), None));
        assert_eq!([la.depth(entry), la.depth(head), la.depth(body), la.depth(exit)], [0, 1, 1, 0]);
        assert!(la.may_repeat(head) && la.may_repeat(body) && !la.may_repeat(entry) && !la.may_repeat(exit));
    }

    #[test]
    fn nested_loops() {
        let (la, b) = analyse(
            "entry:
 br label %outer
\
             outer:
 br label %inner
\
             inner:
 br i1 %c, label %inner.body, label %outer.latch
\
             inner.body:
 br label %inner
\
             outer.latch:
 br i1 %d, label %outer, label %exit
\
             exit:
 ret void",
        );
        let [outer, inner, inner_body, latch, exit] = ["outer", "inner", "inner.body", "outer.latch", "exit"].map(&b);
        assert_eq!(la.loops().len(), 2);
        let (o, i) = (&la.loops()[0], &la.loops()[1]);
        assert_eq!((o.header, o.parent, &o.latches, &o.exits), (outer, None, &vec![latch], &vec![exit]));
        assert_eq!((i.header, i.parent, &i.latches, &i.exits), (inner, Some(0), &vec![inner_body], &vec![latch]));
        assert_eq!(o.blocks, [outer, inner, latch, inner_body], "reverse postorder");
        assert_eq!((la.innermost(inner_body), la.innermost(latch)), (Some(1), Some(0)));
        assert_eq!([la.depth(outer), la.depth(inner), la.depth(inner_body), la.depth(latch), la.depth(exit)], [1, 2, 2, 1, 0]);
        assert!(la.is_reducible() && la.may_repeat(latch) && !la.may_repeat(exit));
    }

    #[test]
    fn two_latches_make_one_loop() {
        let (la, b) = analyse(
            "entry:
 br label %head
\
             head:
 br i1 %c, label %left, label %right
\
             left:
 br i1 %d, label %head, label %exit
\
             right:
 br label %head
\
             exit:
 ret void",
        );
        let [head, left, right, exit] = ["head", "left", "right", "exit"].map(&b);
        assert_eq!(la.loops().len(), 1);
        assert_eq!((la.loops()[0].header, &la.loops()[0].latches, &la.loops()[0].exits), (head, &vec![left, right], &vec![exit]));
        assert!(la.may_repeat(left) && la.may_repeat(right) && la.is_reducible());
    }

    #[test]
    fn several_exits() {
        let (la, b) = analyse(
            "entry:
 br label %head
\
             head:
 switch i32 %n, label %body [ i32 0, label %done  i32 1, label %fail ]
\
             body:
 br i1 %c, label %head, label %break
\
             break:
 ret void
\
             done:
 ret void
\
             fail:
 unreachable",
        );
        let [body, brk, done, fail] = ["body", "break", "done", "fail"].map(&b);
        let exits = &la.loops()[0].exits;
        assert_eq!(exits.len(), 3);
        assert!(exits.contains(&brk) && exits.contains(&done) && exits.contains(&fail));
        assert_eq!(la.loops()[0].latches, [body]);
        assert!(!la.may_repeat(fail) && la.depth(done) == 0);
    }

    #[test]
    fn irreducible_cycle_repeats_without_a_loop() {
        // Two entries into the cycle a <-> b: neither dominates the other.
        let (la, b) = analyse(
            "entry:
 br i1 %c, label %a, label %b
\
             a:
 br i1 %d, label %b, label %exit
\
             b:
 br i1 %d, label %a, label %exit
\
             exit:
 ret void",
        );
        let [entry, a, bb, exit] = ["entry", "a", "b", "exit"].map(&b);
        assert!(!la.is_reducible() && la.loops().is_empty());
        assert!(la.may_repeat(a) && la.may_repeat(bb) && !la.may_repeat(entry) && !la.may_repeat(exit));
        assert_eq!((la.depth(a), la.innermost(bb)), (0, None));
    }

    #[test]
    fn irreducible_cycle_inside_a_natural_loop() {
        let (la, b) = analyse(
            "entry:
 br label %head
\
             head:
 br i1 %c, label %a, label %b
\
             a:
 br i1 %d, label %b, label %latch
\
             b:
 br i1 %d, label %a, label %latch
\
             latch:
 br i1 %c, label %head, label %exit
\
             exit:
 ret void",
        );
        let [head, a, latch] = ["head", "a", "latch"].map(&b);
        assert!(!la.is_reducible());
        assert_eq!(la.loops().len(), 1);
        assert_eq!((la.loops()[0].header, la.depth(a), la.depth(latch)), (head, 1, 1));
        assert!(la.may_repeat(a));
    }

    #[test]
    fn self_loop_and_unreachable_cycle() {
        let (la, b) = analyse(
            "entry:
 br label %spin
spin:
 br i1 %c, label %spin, label %done
done:
 ret void
\
             lost:
 br label %lost2
lost2:
 br label %lost",
        );
        let [spin, done, lost] = ["spin", "done", "lost"].map(&b);
        assert_eq!(la.loops()[0].latches, [spin]);
        assert!(la.may_repeat(spin) && !la.may_repeat(done));
        // Unreachable blocks never run: no loop, no repetition, and no panic.
        assert!(!la.may_repeat(lost) && la.depth(lost) == 0 && la.is_reducible());
    }
}
