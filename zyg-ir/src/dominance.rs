//! Dominator and post-dominator trees, by Cooper, Harvey & Kennedy 2001, "A Simple, Fast
//! Dominance Algorithm" (iterative, over reverse postorder).

use crate::cfg::ControlFlowGraph;
use crate::entities::Block;
use crate::function::Function;
use cranelift_entity::SecondaryMap;

/// Immediate dominators over a graph given as nodes in reverse postorder and their preds.
/// Node indices are positions in that order; the root is index 0 and is its own idom.
fn idoms(n: usize, preds: &[Vec<usize>]) -> Vec<Option<usize>> {
    let mut idom: Vec<Option<usize>> = vec![None; n];
    if n == 0 {
        return idom;
    }
    idom[0] = Some(0);
    // Walks two fingers up the tree to their nearest common ancestor. Every node on the way
    // has an idom, and it comes earlier in reverse postorder, so each walk ends.
    let intersect = |idom: &[Option<usize>], mut a: usize, mut b: usize| {
        while a != b {
            while a > b {
                a = idom[a].expect("a processed node has an idom");
            }
            while b > a {
                b = idom[b].expect("a processed node has an idom");
            }
        }
        a
    };
    let mut changed = true;
    while changed {
        changed = false;
        for node in 1..n {
            let mut new = None;
            for &p in preds[node].iter().filter(|p| idom[**p].is_some()) {
                new = Some(new.map_or(p, |cur| intersect(&idom, p, cur)));
            }
            if new.is_some() && idom[node] != new {
                idom[node] = new;
                changed = true;
            }
        }
    }
    idom
}

/// A tree over blocks: parents, children, and constant-time ancestry from the preorder
/// interval of each node (Tarjan 1974's numbering of a depth-first walk).
#[derive(Clone, Debug)]
struct Tree {
    parent: SecondaryMap<Block, Option<Block>>,
    children: SecondaryMap<Block, Vec<Block>>,
    /// Preorder number on entry and the largest preorder number below; `None` off the tree.
    interval: SecondaryMap<Block, Option<(u32, u32)>>,
}

impl Tree {
    /// `order` lists the tree's blocks in reverse postorder of their graph; `preds` gives each
    /// block's predecessors in that graph. Non-empty `roots` puts a virtual root above them
    /// (the post-dominator tree's virtual exit); else `order[0]` is the root.
    fn build(order: &[Block], preds: impl Fn(Block) -> Vec<Block>, roots: &[Block]) -> Tree {
        let offset = usize::from(!roots.is_empty());
        let mut index: SecondaryMap<Block, Option<usize>> = SecondaryMap::new();
        for (i, b) in order.iter().enumerate() {
            index[*b] = Some(i + offset);
        }
        let mut node_preds = vec![Vec::new(); order.len() + offset];
        for (i, b) in order.iter().enumerate() {
            node_preds[i + offset] = preds(*b).into_iter().filter_map(|p| index[p]).collect();
            if offset == 1 && roots.contains(b) {
                node_preds[i + offset].push(0);
            }
        }
        let idom = idoms(order.len() + offset, &node_preds);
        let mut tree = Tree { parent: SecondaryMap::new(), children: SecondaryMap::new(), interval: SecondaryMap::new() };
        let mut tops = Vec::new();
        for (i, b) in order.iter().enumerate() {
            let parent = idom[i + offset].filter(|p| *p >= offset && *p != i + offset).map(|p| order[p - offset]);
            tree.parent[*b] = parent;
            match parent {
                Some(p) => tree.children[p].push(*b),
                None => tops.push(*b),
            }
        }
        tree.number(&tops);
        tree
    }

    /// Gives each node its preorder interval, walking down from `tops` without recursion.
    fn number(&mut self, tops: &[Block]) {
        let mut next = 0u32;
        for &top in tops {
            let mut stack = vec![(top, 0usize)];
            self.interval[top] = Some((next, next));
            next += 1;
            while let Some((b, i)) = stack.last_mut() {
                if let Some(&child) = self.children[*b].get(*i) {
                    *i += 1;
                    self.interval[child] = Some((next, next));
                    next += 1;
                    stack.push((child, 0));
                } else {
                    let b = *b;
                    stack.pop();
                    if let Some(start) = self.interval[b].map(|(s, _)| s) {
                        self.interval[b] = Some((start, next - 1));
                    }
                }
            }
        }
    }

    /// Whether `a` is `b` or an ancestor of it; false when either is off the tree.
    fn dominates(&self, a: Block, b: Block) -> bool {
        match (self.interval[a], self.interval[b]) {
            (Some((a_in, a_last)), Some((b_in, _))) => a_in <= b_in && b_in <= a_last,
            _ => false,
        }
    }
}

/// Dominators of the blocks reachable from the entry.
#[derive(Clone, Debug)]
pub struct DominatorTree {
    tree: Tree,
}

impl DominatorTree {
    pub fn compute(_func: &Function, cfg: &ControlFlowGraph) -> Self {
        let tree = Tree::build(cfg.reverse_postorder(), |b| cfg.preds(b).to_vec(), &[]);
        DominatorTree { tree }
    }

    /// The immediate dominator; `None` for the entry and unreachable blocks.
    pub fn idom(&self, b: Block) -> Option<Block> {
        self.tree.parent[b]
    }

    /// Reflexive: a reachable block dominates itself. Unreachable blocks are in no
    /// dominance relation, not even with themselves.
    pub fn dominates(&self, a: Block, b: Block) -> bool {
        self.tree.dominates(a, b)
    }

    /// The blocks this one immediately dominates, in reverse postorder.
    pub fn children(&self, b: Block) -> &[Block] {
        &self.tree.children[b]
    }
}

/// Post-dominators: dominators of the reversed CFG, with a virtual exit that joins every
/// block where control leaves, the `ret` exits and the `unreachable` dead ends (as LLVM's
/// post-dominator tree does). Blocks that reach no such block (those only in an infinite
/// loop) and unreachable blocks are off the tree: no `ipdom`, and no relation.
#[derive(Clone, Debug)]
pub struct PostDominatorTree {
    tree: Tree,
}

impl PostDominatorTree {
    pub fn compute(_func: &Function, cfg: &ControlFlowGraph) -> Self {
        let roots: Vec<Block> = cfg.exits().iter().chain(cfg.dead_ends()).copied().collect();
        // Reverse postorder of the reversed graph, from the virtual exit.
        let mut order = crate::cfg::postorder(&roots, |b| cfg.preds(b).to_vec());
        order.reverse();
        let tree = Tree::build(&order, |b| cfg.succs(b).to_vec(), &roots);
        PostDominatorTree { tree }
    }

    /// The immediate post-dominator; `None` where it is the virtual exit (exits, dead ends,
    /// and blocks whose paths out part until they leave) and for blocks off the tree.
    pub fn ipdom(&self, b: Block) -> Option<Block> {
        self.tree.parent[b]
    }

    /// Reflexive, like `DominatorTree::dominates`.
    pub fn post_dominates(&self, a: Block, b: Block) -> bool {
        self.tree.dominates(a, b)
    }

    pub fn children(&self, b: Block) -> &[Block] {
        &self.tree.children[b]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cfg::tests::function;

    fn trees(body: &str) -> (DominatorTree, PostDominatorTree, impl Fn(&str) -> Block) {
        let (f, b) = function(body);
        let cfg = ControlFlowGraph::compute(&f);
        (DominatorTree::compute(&f, &cfg), PostDominatorTree::compute(&f, &cfg), b)
    }

    #[test]
    fn diamond() {
        let (dom, pdom, b) =
            trees("entry:\n br i1 %c, label %l, label %r\nl:\n br label %join\nr:\n br label %join\njoin:\n ret void");
        let [entry, l, r, join] = ["entry", "l", "r", "join"].map(&b);
        assert_eq!([dom.idom(entry), dom.idom(l), dom.idom(r), dom.idom(join)], [None, Some(entry), Some(entry), Some(entry)]);
        assert_eq!(dom.children(entry).len(), 3);
        assert!(dom.dominates(entry, join) && dom.dominates(join, join) && !dom.dominates(l, join));
        assert_eq!(
            [pdom.ipdom(entry), pdom.ipdom(l), pdom.ipdom(r), pdom.ipdom(join)],
            [Some(join), Some(join), Some(join), None]
        );
        assert!(pdom.post_dominates(join, entry) && !pdom.post_dominates(l, entry) && !pdom.post_dominates(entry, l));
    }

    #[test]
    fn while_loop() {
        let (dom, pdom, b) = trees(
            "entry:\n br label %head\nhead:\n br i1 %c, label %body, label %exit\nbody:\n br label %head\nexit:\n ret void",
        );
        let [entry, head, body, exit] = ["entry", "head", "body", "exit"].map(&b);
        assert_eq!([dom.idom(head), dom.idom(body), dom.idom(exit)], [Some(entry), Some(head), Some(head)]);
        assert!(dom.dominates(head, body) && !dom.dominates(body, head));
        assert_eq!([pdom.ipdom(entry), pdom.ipdom(head), pdom.ipdom(body)], [Some(head), Some(exit), Some(head)]);
        assert!(pdom.post_dominates(exit, entry) && pdom.post_dominates(head, body));
    }

    #[test]
    fn several_exits_and_dead_ends_meet_at_the_virtual_exit() {
        let (dom, pdom, b) = trees(
            "entry:\n br i1 %c, label %a, label %b\n\
             a:\n ret void\n\
             b:\n br i1 %d, label %c, label %trap\n\
             c:\n ret void\n\
             trap:\n unreachable\n\
             spin:\n br label %spin",
        );
        let [entry, a, bb, c, trap, spin] = ["entry", "a", "b", "c", "trap", "spin"].map(&b);
        assert_eq!([pdom.ipdom(entry), pdom.ipdom(a), pdom.ipdom(bb), pdom.ipdom(c), pdom.ipdom(trap)], [None; 5]);
        assert!(pdom.post_dominates(trap, trap) && !pdom.post_dominates(c, bb));
        assert_eq!(dom.idom(trap), Some(bb));
        // `spin` is unreachable: in no relation, and nothing panics.
        assert!(!dom.dominates(spin, spin) && !pdom.post_dominates(spin, spin) && dom.idom(spin).is_none());
    }

    #[test]
    fn infinite_loop_is_off_the_post_dominator_tree() {
        let (dom, pdom, b) = trees("entry:\n br i1 %c, label %spin, label %out\nspin:\n br label %spin\nout:\n ret void");
        let [entry, spin, out] = ["entry", "spin", "out"].map(&b);
        assert_eq!(dom.idom(spin), Some(entry));
        assert_eq!((pdom.ipdom(entry), pdom.ipdom(spin)), (Some(out), None));
        assert!(!pdom.post_dominates(spin, spin) && !pdom.post_dominates(out, spin));
    }

    #[test]
    fn a_long_chain_does_not_recurse() {
        let body: String = (0..20_000).map(|i| format!("b{i}:\n br label %b{}\n", i + 1)).collect();
        let (dom, pdom, b) = trees(&format!("{body}b20000:\n ret void"));
        assert!(dom.dominates(b("b0"), b("b20000")) && pdom.post_dominates(b("b20000"), b("b0")));
        assert_eq!(dom.idom(b("b20000")), Some(b("b19999")));
    }
}
