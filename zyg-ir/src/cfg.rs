//! The control-flow graph: unique predecessors and successors of each block, the reverse
//! postorder of the blocks reachable from the entry, and the blocks where control leaves.

use crate::entities::Block;
use crate::function::Function;
use crate::inst::InstKind;
use cranelift_entity::{EntitySet, SecondaryMap};

/// Edges between the blocks in a function's layout. Everything but `succs` is about the
/// blocks reachable from the entry: unreachable blocks have no predecessors here, and are
/// not predecessors of anything.
#[derive(Clone, Debug)]
pub struct ControlFlowGraph {
    preds: SecondaryMap<Block, Vec<Block>>,
    succs: SecondaryMap<Block, Vec<Block>>,
    rpo: Vec<Block>,
    reachable: SecondaryMap<Block, bool>,
    exits: Vec<Block>,
    dead_ends: Vec<Block>,
}

impl ControlFlowGraph {
    pub fn compute(func: &Function) -> Self {
        let mut succs: SecondaryMap<Block, Vec<Block>> = SecondaryMap::new();
        for &b in &func.layout {
            succs[b] = func.successors(b);
        }
        let rpo = reverse_postorder(func, &succs);
        let mut reachable = SecondaryMap::new();
        for &b in &rpo {
            reachable[b] = true;
        }
        // Predecessors in layout order, reachable ones only. A block's successors are unique,
        // so each edge is added once: only a block listed twice in the layout is skipped.
        let mut preds: SecondaryMap<Block, Vec<Block>> = SecondaryMap::new();
        let mut done = EntitySet::new();
        for &b in func.layout.iter().filter(|b| reachable[**b]) {
            if done.insert(b) {
                for &s in succs[b].iter() {
                    preds[s].push(b);
                }
            }
        }
        let returns = |b: Block| func.terminator(b).is_some_and(|t| matches!(func.insts[t].kind, InstKind::Ret { .. }));
        let exits = rpo.iter().copied().filter(|b| returns(*b)).collect();
        let dead_ends = rpo.iter().copied().filter(|b| succs[*b].is_empty() && !returns(*b)).collect();
        ControlFlowGraph { preds, succs, rpo, reachable, exits, dead_ends }
    }

    /// Unique reachable predecessors, in layout order.
    pub fn preds(&self, b: Block) -> &[Block] {
        &self.preds[b]
    }

    /// Unique successors, in terminator order.
    pub fn succs(&self, b: Block) -> &[Block] {
        &self.succs[b]
    }

    /// The blocks reachable from the entry, each before its successors except along back
    /// edges; the entry first.
    pub fn reverse_postorder(&self) -> &[Block] {
        &self.rpo
    }

    pub fn is_reachable(&self, b: Block) -> bool {
        self.reachable[b]
    }

    /// Reachable blocks that end in `ret`, in reverse postorder.
    pub fn exits(&self) -> &[Block] {
        &self.exits
    }

    /// Reachable blocks where control stops without returning: those that end in
    /// `unreachable` (or, in IR still being built, have no terminator), in reverse postorder.
    pub fn dead_ends(&self) -> &[Block] {
        &self.dead_ends
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

/// The landing pads the calls of `block` unwind to.
pub fn unwind_edges(func: &Function, block: Block) -> Vec<Block> {
    let mut out: Vec<Block> = Vec::new();
    for &i in &func.blocks[block].insts {
        if let Some(pad) = func.insts[i].kind.unwind() {
            if !out.contains(&pad) {
                out.push(pad);
            }
        }
    }
    out
}

/// Where control may go from `block`: its successors, then the landing pads its calls
/// unwind to (the walk that reaches handler blocks).
pub fn successors_and_unwind_edges(func: &Function, block: Block) -> Vec<Block> {
    let mut next = func.successors(block);
    next.extend(unwind_edges(func, block));
    next
}

/// Moves the blocks reached only by unwinding (landing pads and what follows them) from
/// the layout to `func.handlers`, in layout order. A handler that goes on into the normal
/// path (a `catch` that does not rethrow) is refused: the exception would change which
/// path the adjoint must reverse, which zyg does not record. The error names the handler's
/// terminator.
pub fn split_handlers(func: &mut Function) -> Result<(), (crate::entities::Inst, String)> {
    let Some(entry) = func.entry() else { return Ok(()) };
    let normal = postorder(&[entry], |b| func.successors(b));
    let mut is_normal: SecondaryMap<Block, bool> = SecondaryMap::new();
    for &b in &normal {
        is_normal[b] = true;
    }
    let pads: Vec<Block> = normal.iter().flat_map(|&b| unwind_edges(func, b)).collect();
    if pads.is_empty() {
        return Ok(());
    }
    let handlers = postorder(&pads, |b| successors_and_unwind_edges(func, b));
    let mut is_handler: SecondaryMap<Block, bool> = SecondaryMap::new();
    for &b in &handlers {
        if is_normal[b] {
            continue;
        }
        is_handler[b] = true;
        if func.successors(b).iter().any(|s| is_normal[*s]) {
            let term = func.terminator(b).expect("a block with successors ends in a terminator");
            return Err((
                term,
                "an exception handler here goes on into the function's normal path (a `catch` that does not \
                 rethrow), which zyg does not differentiate yet; catch the exception outside the function to \
                 differentiate, or rethrow it"
                    .into(),
            ));
        }
    }
    let (handler_blocks, layout): (Vec<Block>, Vec<Block>) = func.layout.iter().partition(|b| is_handler[**b]);
    func.layout = layout;
    func.handlers = handler_blocks;
    Ok(())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::text::parse_function;

    /// A function of `body`, and its blocks by label.
    pub(crate) fn function(body: &str) -> (Function, impl Fn(&str) -> Block) {
        let text = format!("define void @f(i1 %c, i1 %d, i32 %n) {{\n{body}\n}}\n");
        let f = parse_function(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        let blocks: Vec<(String, Block)> = f.layout.iter().map(|b| (f.blocks[*b].name.clone().unwrap_or_default(), *b)).collect();
        let by_name = move |name: &str| blocks.iter().find(|(n, _)| n == name).map(|(_, b)| *b).expect(name);
        (f, by_name)
    }

    #[test]
    fn edges_orders_and_exits() {
        let (f, b) = function(
            "entry:\n switch i32 %n, label %a [ i32 0, label %b  i32 1, label %a  i32 2, label %c ]\n\
             a:\n br label %b\n\
             b:\n br i1 %c, label %a, label %stop\n\
             c:\n ret void\n\
             stop:\n unreachable\n\
             lost:\n br label %c",
        );
        let cfg = ControlFlowGraph::compute(&f);
        let [entry, a, bb, c, stop, lost] = ["entry", "a", "b", "c", "stop", "lost"].map(&b);
        assert_eq!(cfg.succs(entry), [a, bb, c], "unique, in terminator order");
        assert_eq!(cfg.preds(bb), [entry, a], "in layout order");
        assert_eq!(cfg.preds(c), [entry], "the unreachable `lost` is left out");
        assert_eq!(cfg.succs(lost), [c]);
        assert_eq!((cfg.exits(), cfg.dead_ends()), (&[c][..], &[stop][..]));
        assert!(!cfg.is_reachable(lost) && cfg.is_reachable(stop));
        let rpo = cfg.reverse_postorder();
        assert_eq!(rpo.len(), 5);
        assert_eq!(rpo[0], entry);
        let at = |x: Block| rpo.iter().position(|y| *y == x);
        assert!(at(a) < at(bb) && at(bb) < at(stop));
    }

    #[test]
    fn empty_function() {
        let f = Function::new("g", crate::types::Signature::new(vec![], crate::types::Type::Void));
        let cfg = ControlFlowGraph::compute(&f);
        assert!(cfg.reverse_postorder().is_empty() && cfg.exits().is_empty());
    }
}
