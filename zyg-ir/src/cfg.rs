//! The control-flow graph: unique predecessors and successors of each block, and the
//! reverse postorder of the blocks reachable from the entry.

use crate::entities::Block;
use crate::function::Function;
use crate::inst::InstKind;
use cranelift_entity::SecondaryMap;

pub struct ControlFlowGraph {
    preds: SecondaryMap<Block, Vec<Block>>,
    succs: SecondaryMap<Block, Vec<Block>>,
    rpo: Vec<Block>,
    reachable: SecondaryMap<Block, bool>,
    exits: Vec<Block>,
}

impl ControlFlowGraph {
    pub fn compute(func: &Function) -> Self {
        let mut succs: SecondaryMap<Block, Vec<Block>> = SecondaryMap::new();
        let mut preds: SecondaryMap<Block, Vec<Block>> = SecondaryMap::new();
        for &b in &func.layout {
            succs[b] = func.successors(b);
        }
        let rpo = reverse_postorder(func, &succs);
        let mut reachable = SecondaryMap::new();
        for &b in &rpo {
            reachable[b] = true;
        }
        // Predecessors in layout order, reachable ones only.
        for &b in &func.layout {
            if !reachable[b] {
                continue;
            }
            for &s in succs[b].iter() {
                if !preds[s].contains(&b) {
                    preds[s].push(b);
                }
            }
        }
        let exits = rpo
            .iter()
            .copied()
            .filter(|b| func.terminator(*b).is_some_and(|t| matches!(func.insts[t].kind, InstKind::Ret { .. })))
            .collect();
        ControlFlowGraph { preds, succs, rpo, reachable, exits }
    }

    /// Unique reachable predecessors, in layout order.
    pub fn preds(&self, b: Block) -> &[Block] {
        &self.preds[b]
    }

    /// Unique successors, in terminator order.
    pub fn succs(&self, b: Block) -> &[Block] {
        &self.succs[b]
    }

    pub fn reverse_postorder(&self) -> &[Block] {
        &self.rpo
    }

    pub fn is_reachable(&self, b: Block) -> bool {
        self.reachable[b]
    }

    /// Reachable blocks that end in `ret`.
    pub fn exits(&self) -> &[Block] {
        &self.exits
    }
}

fn reverse_postorder(func: &Function, succs: &SecondaryMap<Block, Vec<Block>>) -> Vec<Block> {
    let Some(entry) = func.entry() else { return Vec::new() };
    let mut order = postorder(&[entry], |b| succs[b].clone());
    order.reverse();
    order
}

/// Depth-first postorder of the blocks reachable from `roots` along `next` (iterative, so
/// deep CFGs cannot overflow the stack). Used forwards for reverse postorder and backwards
/// from the exits for post-dominators.
pub fn postorder(roots: &[Block], mut next: impl FnMut(Block) -> Vec<Block>) -> Vec<Block> {
    let mut seen: SecondaryMap<Block, bool> = SecondaryMap::new();
    let mut post = Vec::new();
    for &root in roots {
        if seen[root] {
            continue;
        }
        seen[root] = true;
        let mut stack = vec![(root, next(root), 0usize)];
        while let Some((b, succs, i)) = stack.last_mut() {
            if let Some(&s) = succs.get(*i) {
                *i += 1;
                if !seen[s] {
                    seen[s] = true;
                    let succs = next(s);
                    stack.push((s, succs, 0));
                }
            } else {
                post.push(*b);
                stack.pop();
            }
        }
    }
    post
}
