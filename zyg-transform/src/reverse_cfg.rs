//! Phase "reversed CFG": the control flow of the adjoint, decided before any of its code is
//! emitted. Every reachable primal block has one adjoint block, and the adjoint runs them
//! against the primal's edges: it starts at the block that returned, leaves each block
//! towards the predecessor the primal came from, and ends after the primal's entry. Which
//! predecessor that was is read from the tape (the id the primal recorded, `Field::PredId`)
//! or, at the header of a counted loop (`tape::Counted`), counted: the adjoint knows how
//! many times the header ran (recorded or computed where the loop is left, `Trips`) and
//! takes the latch until the last visit, then the preheader. `adjoint::build` walks the
//! result (`ReversedCfg`) to emit the code.

use crate::tape::Field;
use crate::Plan;
use cranelift_entity::SecondaryMap;
use zyg_ir::Block;

/// The adjoint's control flow, in terms of primal blocks (each standing for its adjoint
/// block).
pub struct ReversedCfg {
    /// The primal blocks that have adjoint blocks, in the adjoint's layout (postorder of
    /// the primal, so the returns come first and the entry last), between the adjoint's
    /// own entry and exit blocks.
    pub layout: Vec<Block>,
    /// The order the adjoint blocks are filled in: reverse postorder of the primal.
    pub walk: Vec<Block>,
    /// Where the adjoint goes from its entry block.
    pub start: Start,
    /// The counted loops, by header, sorted: each has a slot for how many executions of
    /// its header the adjoint has yet to visit in the current activation.
    pub counted: Vec<Block>,
    /// How each adjoint block continues, by primal block.
    pub blocks: SecondaryMap<Block, Reversal>,
}

/// Where the adjoint starts: where the primal returned.
pub enum Start {
    /// The primal never returns: straight to the adjoint's exit.
    Exit,
    /// The adjoint of the only return block (or of the first, where which one ran is not
    /// recorded).
    Block(Block),
    /// The adjoint of the return block whose index (in `returns`) the primal stored in
    /// tape field `field`; the first is the default.
    Recorded { field: u32, returns: Vec<Block> },
}

/// How the adjoint block of one primal block continues, after its backpropagators.
#[derive(Clone, Default)]
pub struct Reversal {
    /// The counted loops the primal left from this block, which the adjoint enters here:
    /// their trip counts set the headers' remaining counts, in this order.
    pub loop_entries: Vec<LoopEntry>,
    /// Where the adjoint goes next.
    pub next: Next,
}

/// A counted loop entered backwards, and where its trip count comes from.
#[derive(Clone, Copy)]
pub struct LoopEntry {
    pub header: Block,
    pub trips: Trips,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Trips {
    /// Recorded by the primal (`Field::Trips(header)` of the leaving block).
    Recorded,
    /// Computed from the loop's start and bound (`recompute::TripCount`).
    Computed,
}

/// The adjoint's next block.
#[derive(Clone, Default)]
pub enum Next {
    /// The primal's entry: the adjoint's exit block.
    #[default]
    Exit,
    /// The only predecessor.
    Pred(Block),
    /// One of the predecessors (`cfg.preds` order), the one the primal came from.
    Branch { preds: Vec<Block>, taken: Taken },
}

/// How the adjoint knows which predecessor the primal came from.
#[derive(Clone, Copy)]
pub enum Taken {
    /// The id the primal recorded: the predecessor's index (`Field::PredId`).
    Recorded,
    /// A counted loop's header: one visit fewer remains; the preheader (index `first`)
    /// on the last, the latch (index `again`) before.
    Counted { first: usize, again: usize },
}

/// Phase "reversed CFG" (see the module comment).
pub fn plan(plan: &Plan) -> ReversedCfg {
    let walk = plan.cfg.reverse_postorder().to_vec();
    let layout = walk.iter().rev().copied().collect();
    let mut counted: Vec<Block> = plan.layout.counted.keys().copied().collect();
    counted.sort_unstable();
    let mut blocks = SecondaryMap::new();
    for &b in &walk {
        blocks[b] = Reversal { loop_entries: loop_entries(plan, b), next: next(plan, b) };
    }
    ReversedCfg { layout, walk, start: start(plan), counted, blocks }
}

/// The adjoint starts where the primal returned.
fn start(plan: &Plan) -> Start {
    let returns = &plan.returns;
    match (returns.len(), plan.layout.exit_index) {
        (0, _) => Start::Exit,
        (1, _) | (_, None) => Start::Block(returns[0]),
        (_, Some(field)) => Start::Recorded { field, returns: returns.clone() },
    }
}

/// The counted loops left from `b`: first those whose trip counts `b` records, then those
/// whose trip counts are computed.
fn loop_entries(plan: &Plan, b: Block) -> Vec<LoopEntry> {
    let recorded = plan.layout.fields_of(b).iter().filter_map(|f| match f {
        Field::Trips(header) => Some(LoopEntry { header: *header, trips: Trips::Recorded }),
        _ => None,
    });
    let computed = plan
        .loops
        .loops()
        .iter()
        .filter(|l| l.exits.contains(&b) && plan.recompute.trips.contains_key(&l.header))
        .map(|l| LoopEntry { header: l.header, trips: Trips::Computed });
    recorded.chain(computed).collect()
}

/// Where the adjoint of `b` goes next, and how it picks the predecessor.
fn next(plan: &Plan, b: Block) -> Next {
    let preds = plan.cfg.preds(b);
    let taken = match plan.layout.counted.get(&b) {
        Some(counted) => {
            let index = |p: Block| preds.iter().position(|q| *q == p).expect("a predecessor");
            Taken::Counted { first: index(counted.preheader), again: index(counted.latch) }
        }
        None => Taken::Recorded,
    };
    match preds {
        [] => Next::Exit,
        [p] => Next::Pred(*p),
        _ => Next::Branch { preds: preds.to_vec(), taken },
    }
}
