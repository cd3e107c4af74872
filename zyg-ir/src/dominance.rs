//! Dominator and post-dominator trees, by Cooper, Harvey & Kennedy 2001, "A Simple, Fast
//! Dominance Algorithm" (iterative, over reverse postorder).

use crate::cfg::ControlFlowGraph;
use crate::entities::Block;
use crate::function::Function;
use cranelift_entity::SecondaryMap;

/// Immediate dominators over a graph given as nodes in reverse postorder and their preds.
/// Node indices are positions in `rpo`; the root is index 0.
fn idoms(n: usize, preds: &[Vec<usize>]) -> Vec<Option<usize>> {
    let mut idom: Vec<Option<usize>> = vec![None; n];
    if n == 0 {
        return idom;
    }
    idom[0] = Some(0);
    let intersect = |idom: &[Option<usize>], mut a: usize, mut b: usize| {
        while a != b {
            while a > b {
                a = idom[a].expect("processed");
            }
            while b > a {
                b = idom[b].expect("processed");
            }
        }
        a
    };
    let mut changed = true;
    while changed {
        changed = false;
        for node in 1..n {
            let mut new = None;
            for &p in &preds[node] {
                if idom[p].is_some() {
                    new = Some(match new {
                        None => p,
                        Some(cur) => intersect(&idom, p, cur),
                    });
                }
            }
            if new.is_some() && idom[node] != new {
                idom[node] = new;
                changed = true;
            }
        }
    }
    idom
}

/// A tree over blocks: immediate parents, children, and a dominance query.
struct Tree {
    parent: SecondaryMap<Block, Option<Block>>,
    children: SecondaryMap<Block, Vec<Block>>,
    depth: SecondaryMap<Block, u32>,
    member: SecondaryMap<Block, bool>,
}

impl Tree {
    /// `order` lists the tree's blocks root first (reverse postorder of its graph); `preds`
    /// gives each block's predecessors in that graph. `virtual_root` adds a root above all
    /// blocks listed in `roots` (the post-dominator tree's virtual exit).
    fn build(order: &[Block], preds: impl Fn(Block) -> Vec<Block>, roots: &[Block]) -> Tree {
        let offset = usize::from(!roots.is_empty());
        let mut index: SecondaryMap<Block, usize> = SecondaryMap::with_default(usize::MAX);
        for (i, b) in order.iter().enumerate() {
            index[*b] = i + offset;
        }
        let mut node_preds = vec![Vec::new(); order.len() + offset];
        for (i, b) in order.iter().enumerate() {
            node_preds[i + offset] = preds(*b).into_iter().filter(|p| index[*p] != usize::MAX).map(|p| index[p]).collect();
            if offset == 1 && roots.contains(b) {
                node_preds[i + offset].push(0);
            }
        }
        let idom = idoms(order.len() + offset, &node_preds);
        let mut tree = Tree {
            parent: SecondaryMap::new(),
            children: SecondaryMap::new(),
            depth: SecondaryMap::new(),
            member: SecondaryMap::new(),
        };
        for (i, b) in order.iter().enumerate() {
            tree.member[*b] = true;
            let parent = idom[i + offset].filter(|p| *p >= offset && *p != i + offset).map(|p| order[p - offset]);
            tree.parent[*b] = parent;
            if let Some(p) = parent {
                tree.children[p].push(*b);
            }
        }
        // Depths in order: a parent precedes its children in reverse postorder.
        for b in order {
            tree.depth[*b] = tree.parent[*b].map_or(0, |p| tree.depth[p] + 1);
        }
        tree
    }

    fn dominates(&self, a: Block, mut b: Block) -> bool {
        if !self.member[a] || !self.member[b] {
            return false;
        }
        while self.depth[b] > self.depth[a] {
            b = self.parent[b].expect("deeper block has a parent");
        }
        a == b
    }
}

pub struct DominatorTree {
    tree: Tree,
}

impl DominatorTree {
    pub fn compute(_func: &Function, cfg: &ControlFlowGraph) -> Self {
        let tree = Tree::build(cfg.reverse_postorder(), |b| cfg.preds(b).to_vec(), &[]);
        DominatorTree { tree }
    }

    pub fn idom(&self, b: Block) -> Option<Block> {
        self.tree.parent[b]
    }

    /// Reflexive: a block dominates itself. Unreachable blocks dominate nothing.
    pub fn dominates(&self, a: Block, b: Block) -> bool {
        self.tree.dominates(a, b)
    }

    pub fn children(&self, b: Block) -> &[Block] {
        &self.tree.children[b]
    }
}

/// Post-dominators: dominators of the reversed CFG, with a virtual exit joining all exits.
pub struct PostDominatorTree {
    tree: Tree,
}

impl PostDominatorTree {
    pub fn compute(_func: &Function, cfg: &ControlFlowGraph) -> Self {
        // Reverse postorder of the reversed graph, from the virtual exit.
        let mut post = crate::cfg::postorder(cfg.exits(), |b| cfg.preds(b).to_vec());
        post.reverse();
        let tree = Tree::build(&post, |b| cfg.succs(b).to_vec(), cfg.exits());
        PostDominatorTree { tree }
    }

    /// The immediate post-dominator; None for exits and blocks whose is the virtual exit.
    pub fn ipdom(&self, b: Block) -> Option<Block> {
        self.tree.parent[b]
    }

    pub fn post_dominates(&self, a: Block, b: Block) -> bool {
        self.tree.dominates(a, b)
    }

    pub fn children(&self, b: Block) -> &[Block] {
        &self.tree.children[b]
    }
}
