//! Natural loops (a back edge t → h where h dominates t, and the blocks that reach t
//! without passing h), their nesting, and which blocks can run more than once per call.

use crate::cfg::ControlFlowGraph;
use crate::dominance::DominatorTree;
use crate::entities::Block;
use crate::function::Function;
use cranelift_entity::SecondaryMap;

pub struct Loop {
    pub header: Block,
    pub blocks: Vec<Block>,
    pub parent: Option<usize>,
    pub latches: Vec<Block>,
    pub exits: Vec<Block>,
}

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
            let mut member: SecondaryMap<Block, bool> = SecondaryMap::new();
            member[h] = true;
            let mut work = latches.clone();
            while let Some(b) = work.pop() {
                if !member[b] {
                    member[b] = true;
                    work.extend(cfg.preds(b).iter().copied());
                }
            }
            let blocks: Vec<Block> = cfg.reverse_postorder().iter().copied().filter(|b| member[*b]).collect();
            let mut exits = Vec::new();
            for &b in &blocks {
                for &s in cfg.succs(b) {
                    if !member[s] && !exits.contains(&s) {
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
        let reducible = cfg.reverse_postorder().iter().all(|b| !in_cycle[*b] || depth[*b] > 0)
            && retreating_edges_are_back_edges(cfg, dom);
        LoopAnalysis { loops, innermost, depth, reducible, in_cycle }
    }

    pub fn loops(&self) -> &[Loop] {
        &self.loops
    }

    pub fn innermost(&self, b: Block) -> Option<usize> {
        self.innermost[b]
    }

    pub fn depth(&self, b: Block) -> u32 {
        self.depth[b]
    }

    pub fn is_reducible(&self) -> bool {
        self.reducible
    }

    /// True if `b` can run more than once in one call: it lies on a cycle of the CFG
    /// (a natural loop, or any cycle of an irreducible CFG).
    pub fn may_repeat(&self, b: Block) -> bool {
        self.in_cycle[b]
    }
}

/// Every edge to a block earlier in reverse postorder must go to a dominator.
fn retreating_edges_are_back_edges(cfg: &ControlFlowGraph, dom: &DominatorTree) -> bool {
    let mut position: SecondaryMap<Block, usize> = SecondaryMap::new();
    for (i, b) in cfg.reverse_postorder().iter().enumerate() {
        position[*b] = i;
    }
    cfg.reverse_postorder()
        .iter()
        .all(|&b| cfg.succs(b).iter().all(|&s| position[s] > position[b] || dom.dominates(s, b)))
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
