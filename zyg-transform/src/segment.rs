//! Loop segmentation: how zyg checkpoints a long loop. A time-stepping loop (an ODE
//! integrator, a simulation's steps) tapes every iteration's values until the adjoint reaches
//! them: memory in proportion to the number of steps. Under a tape budget
//! (`zyg grad --tape-budget`), such a loop is cut into *segments* before it is differentiated,
//! on two levels, so that the checkpointed calls of `checkpoint` store the loop's state at the
//! start of each segment and the adjoint reruns one segment at a time:
//!
//! ```text
//! for (;;) { body }                      while (!f.steps(state, memory..., K0)) {}
//!                            becomes     f.steps(...):    up to K0 iterations of the body
//! while (!f.segments(state, memory..., K0, K1)) {}
//!                                        f.segments(...): up to K1 calls of f.steps
//! ```
//!
//! Each call of `f.segments` in the function, and each call of `f.steps` in `f.segments`, is
//! checkpointed (`checkpoint`, `Pullback::Checkpoint`): the primal copies the memory the call
//! may change and runs it without a tape; the adjoint reruns it on the copy with a tape and
//! runs its adjoint. At any time the tape then holds one copy of the loop's memory per K0*K1
//! iterations of the loop (the outer checkpoints), K1 copies for one segment's rerun, and one
//! steps call's K0 taped iterations, for two more runs of the loop's primal (Griewank's
//! binomial checkpointing with two levels of recomputation, in the shape of the code rather
//! than as a runtime schedule).
//!
//! The budget chooses K0 and K1 at run time, before the loop (`segment`, `lengths`): K0 is a
//! quarter of the budget over the tape bytes one iteration took when the adjoint last reran a
//! steps call (the rerun measures the chunk bytes the thread's stacks took,
//! `stack::live_bytes`, and keeps the largest per iteration in a global of the loop,
//! `Segments::measured`; 32 until the first adjoint has run), and K1 a quarter of the budget
//! over the bytes of the loop's memory (the allocations the steps get). The steps' records
//! then take at most about half the budget (a stack's chunks double as it grows), one
//! segment's copies a quarter; the outer copies, n / (K0 K1) of them, fit the rest only when
//! the loop is short enough for two levels (a longer one needs more levels, which zyg does
//! not make yet). The lengths are arguments of the segment functions, stored by their
//! checkpoints like any integer, so a rerun repeats the partition its primal made.
//!
//! The loop's SSA state goes through memory: the values its header's phis start each
//! iteration with, and the values it leaves with (the phis of its exit block), are fields of an
//! `alloca` of the function (`state`), which the segments read when they start and write when
//! they stop. Every pointer the loop uses must point into an allocation of the function of a
//! size known at the call (`malloc`, `calloc`, `new`, an `alloca`): the segments get the
//! allocation's start and size (`Segments::sized`), and compute the pointers the loop used from
//! it, so that the checkpoint can copy the whole allocation (one level down, from the
//! parameter and its size); or into memory nothing changes during the gradient call
//! (`Segments::unchanging`), which needs no copy. Segmenting changes only zyg's copy of the
//! function; the segment functions are written beside the gradients.

use crate::builder::Cursor;
use crate::checkpoint::{allocation_size, reached_functions, root, writes_only_own_memory, Root};
use crate::conventions::Conventions;
use std::collections::{HashMap, HashSet};
use zyg_ir::cfg::ControlFlowGraph;
use zyg_ir::dominance::DominatorTree;
use zyg_ir::loops::LoopAnalysis;
use zyg_ir::{
    BinOp, Block, Callee, Constant, Function, GlobalVar, Inst, InstKind, IntPred, Linkage, Module, ScalarKind, Signature, Type,
    Value, ValueDef,
};

/// The segment functions made for a module, and what was decided, for `-v`.
#[derive(Clone, Debug, Default)]
pub struct Segments {
    /// For each segment function, the pairs (parameter, parameter holding its allocation's
    /// size in bytes): the checkpoint of a call of a segment function inside another one
    /// copies that many bytes from the parameter.
    pub sized: HashMap<String, Vec<(usize, usize)>>,
    /// Functions differentiated by a gradient request (not split mode) that write only
    /// memory they allocate: during the gradient call nothing changes the memory their
    /// parameters point into, so a checkpoint may pass such a pointer on as it is.
    pub unchanging: HashSet<String>,
    /// For each segment function, its pointer parameters into such memory.
    pub passed: HashMap<String, Vec<usize>>,
    /// For each steps function, the global (`i64`, zero to start) in which the adjoint keeps
    /// the most tape bytes one of its iterations took in a rerun (`Checkpoint::measure`),
    /// from which the function chooses K0 on the next gradient call (`lengths`). The driver
    /// defines them.
    pub measured: HashMap<String, String>,
    /// One line per loop considered: segmented, or why not.
    pub report: Vec<String>,
}

impl Segments {
    pub fn is_segment(&self, name: &str) -> bool {
        self.sized.contains_key(name)
    }

    /// The size parameter of parameter `param` of segment function `name`, if it has one.
    pub fn size_param(&self, name: &str, param: usize) -> Option<usize> {
        self.sized.get(name)?.iter().find(|(p, _)| *p == param).map(|(_, s)| *s)
    }

    /// Whether parameter `param` of `name` points into memory nothing changes during the
    /// gradient call (see `unchanging`).
    pub fn unchanging_param(&self, name: &str, param: usize) -> bool {
        self.unchanging.contains(name) || self.passed.get(name).is_some_and(|p| p.contains(&param))
    }
}

/// Segments the long loops of `functions` (and of the functions they call) in `module`: see
/// the module's comment. `whole` are those of `functions` a gradient request (not split
/// mode) differentiates: when such a function writes only memory it allocates, its
/// parameters' memory does not change during the gradient call, and its loops may read it
/// without a copy (`Segments::unchanging`). Functions `others` reach (requests without a
/// budget; forward mode's, which keep no tape) are left as they are. The new functions are
/// added to `module`, named `<function>.<namespace>.steps.<k>` and `...segments.<k>`.
pub fn segment_loops(
    module: &mut Module,
    conventions: &Conventions,
    functions: &[String],
    whole: &[String],
    others: &[String],
    budget: u64,
    namespace: &str,
) -> Segments {
    let mut out = Segments::default();
    // Only where the gradient call starts: a function called from the differentiated code
    // (by another request's function, by itself) gets memory its caller may change later.
    let all: Vec<String> = functions.iter().chain(others).cloned().collect();
    let called = called_or_taken(module, &reached(module, &all));
    for f in whole {
        if !called.contains(f) && writes_only_own_memory(module, conventions, f) {
            out.unchanging.insert(f.clone());
        }
    }
    let skip = reached(module, others);
    for name in reached(module, functions).into_iter().filter(|f| !skip.contains(f)) {
        tracing::debug!("{name}: looking for long loops");
        let Some(index) = module.functions.iter().position(|f| f.name == name) else { continue };
        let mut k = 0;
        // Outermost loops, one at a time: each outlining changes the function's CFG.
        let mut tried: HashSet<Block> = HashSet::new();
        loop {
            let func = &module.functions[index];
            let cfg = ControlFlowGraph::compute(func);
            let loops = LoopAnalysis::compute(func, &cfg, &DominatorTree::compute(func, &cfg));
            let Some(l) = loops.loops().iter().position(|l| l.parent.is_none() && !tried.contains(&l.header)) else { break };
            let header = loops.loops()[l].header;
            tried.insert(header);
            let at = loop_loc(func, &loops.loops()[l]).map(|l| format!(" at line {}", l.line)).unwrap_or_default();
            let unchanging = out.unchanging.contains(&name);
            match is_long(module, func, &loops, l, unchanging) {
                Ok(()) => {}
                // Small loops are many and tape little: only `-vv` lists them.
                Err(Skip::Small) => {
                    tracing::debug!("{name}: loop{at} left alone: little work per iteration");
                    continue;
                }
                Err(Skip::Walks) => {
                    out.report.push(format!(
                        "{name}: loop{at} taped: its addresses depend on its iteration (it walks memory that may change rather than stepping a state)"
                    ));
                    continue;
                }
            }
            let mut func = module.functions[index].clone();
            let measured = format!("{name}.{namespace}.steps.{k}.bytes");
            match segment(module, &mut func, header, unchanging, (budget, &measured), namespace, k) {
                Ok((steps, segments)) => {
                    out.report.push(format!(
                        "{name}: loop{at} segmented for checkpointing: `{}` runs up to K0 iterations, `{}` up to K1 of those; \
                         at run time K0 = {} / (bytes of tape one iteration took, measured by the adjoint; {SEGMENT} until \
                         measured), at least 1, and K1 = {} / (bytes of the loop's memory), at least 2, both at most \
                         {MAX_LENGTH}; the adjoint reruns one segment at a time, for two more runs of the loop",
                        steps.function.name,
                        segments.function.name,
                        budget / 4,
                        budget / 4,
                    ));
                    module.globals.insert(
                        measured.clone(),
                        GlobalVar { ty: Type::I64, constant: false, addrspace: 0, inactive: true, points_to: Vec::new() },
                    );
                    out.measured.insert(steps.function.name.clone(), measured);
                    tried.insert(segments.calls);
                    for made in [steps, segments] {
                        out.sized.insert(made.function.name.clone(), made.sized);
                        out.passed.insert(made.function.name.clone(), made.passed);
                        module.functions.push(made.function);
                    }
                    module.functions[index] = func;
                    k += 1;
                }
                Err(why) => out.report.push(format!("{name}: loop{at} taped: {why}")),
            }
        }
    }
    out
}

/// Where loop `lp` is in the source: its back edge's location, which is the loop
/// statement's (the body's may be an inlined function's), else the first in the loop.
fn loop_loc(func: &Function, lp: &zyg_ir::loops::Loop) -> Option<zyg_ir::SourceLoc> {
    let back_edge = lp.latches.first().and_then(|b| func.terminator(*b)).and_then(|t| func.insts[t].loc.clone());
    back_edge.or_else(|| lp.blocks.iter().flat_map(|b| &func.blocks[*b].insts).find_map(|i| func.insts[*i].loc.clone()))
}

/// Iterations per steps call until the adjoint has measured their tape (`lengths`).
const SEGMENT: i64 = 32;

/// At most this many iterations per steps call, and steps calls per segment.
const MAX_LENGTH: i64 = 1 << 16;

/// The functions `functions` call, or use as values (which something may call).
pub(crate) fn called_or_taken(module: &Module, functions: &[String]) -> HashSet<String> {
    let mut out = HashSet::new();
    for f in functions.iter().filter_map(|f| module.function(f)) {
        for (_, inst) in f.inst_order() {
            let kind = &f.insts[inst].kind;
            if let InstKind::Call { callee: Callee::Direct(c), .. } = kind {
                out.insert(c.to_string());
            }
            for v in kind.operands() {
                if let Some(Constant::Global(g, _)) = f.constant(v) {
                    out.insert(g.clone());
                }
            }
        }
    }
    out
}

/// The functions `roots` reach through direct calls, defined in `module`, sorted.
fn reached(module: &Module, roots: &[String]) -> Vec<String> {
    let mut seen = reached_functions(module, roots.iter().map(String::as_str));
    seen.retain(|f| module.function(f).is_some());
    seen.sort();
    seen
}

/// A loop worth segmenting: a *time-stepping* loop, whose iterations all work on the same
/// memory (no address in it depends on its own iteration: its header's phis), and do work of
/// their own (an inner loop, a call of a function with a body, or at least
/// `MIN_INSTRUCTIONS`). A loop that walks an array instead (`y[i] = ...`) is left alone: a
/// checkpoint copies all the memory the loop uses, which for such a loop is far more than a
/// segment's iterations touch, and its tape per iteration is small anyway.
fn is_long(module: &Module, func: &Function, loops: &LoopAnalysis, l: usize, unchanging: bool) -> Result<(), Skip> {
    let lp = &loops.loops()[l];
    let insts: Vec<Inst> = lp.blocks.iter().flat_map(|b| func.blocks[*b].insts.iter().copied()).collect();
    let works = loops.loops().iter().any(|inner| inner.parent == Some(l))
        || insts.len() >= MIN_INSTRUCTIONS
        || insts.iter().any(|i| {
            matches!(&func.insts[*i].kind, InstKind::Call { callee: Callee::Direct(c), .. }
                if module.function(c).is_some_and(|g| !g.is_declaration()))
        });
    if !works {
        return Err(Skip::Small);
    }
    // The values that depend on the iteration, to a fixpoint (inner loops' phis too).
    let mut varies: HashSet<Value> = func.phis(lp.header).filter_map(|i| func.result(i)).collect();
    loop {
        let before = varies.len();
        for &i in &insts {
            if let Some(v) = func.result(i) {
                if !varies.contains(&v) && func.insts[i].kind.operands().iter().any(|o| varies.contains(o)) {
                    varies.insert(v);
                }
            }
        }
        if varies.len() == before {
            break;
        }
    }
    let walks = insts.iter().any(|i| {
        let kind = &func.insts[*i].kind;
        let address = match kind {
            InstKind::Load { ptr, .. } | InstKind::Store { ptr, .. } => vec![*ptr],
            InstKind::Call { args, .. } => args.iter().copied().filter(|a| func.ty(*a).is_ptr()).collect(),
            _ => vec![],
        };
        // Walking memory nothing changes needs no copy (`Segments::unchanging`).
        address.iter().any(|p| varies.contains(p) && !(unchanging && matches!(root(module, func, *p), Root::Param(_))))
    });
    if walks {
        return Err(Skip::Walks);
    }
    Ok(())
}

/// Why `is_long` leaves a loop alone.
enum Skip {
    /// Little work per iteration.
    Small,
    /// It walks memory a checkpoint would have to copy.
    Walks,
}

/// Instructions per iteration from which a loop without inner loops or calls is worth
/// segmenting.
const MIN_INSTRUCTIONS: usize = 32;

/// A segment function made by `outline`: the function, its sized parameters (see
/// `Segments::sized`), and the block of the caller that calls it in a loop.
struct Outlined {
    function: Function,
    sized: Vec<(usize, usize)>,
    passed: Vec<usize>,
    calls: Block,
}

/// Segments the loop of `func` headed by `header` on two levels: the steps' and the
/// segments' functions, or why the loop cannot be segmented.
/// `(budget, measured)`: the tape budget in bytes, and the global the adjoint measures the
/// steps' tape per iteration in (`Segments::measured`).
fn segment(
    module: &Module,
    func: &mut Function,
    header: Block,
    unchanging: bool,
    (budget, measured): (u64, &str),
    namespace: &str,
    k: usize,
) -> Result<(Outlined, Outlined), String> {
    let (cfg, loops, l) = loop_at(func, header)?;
    let preheader = check_shape(func, &cfg, &loops, l)?;
    // K0, the iterations per steps call: a quarter of the budget over the bytes one
    // iteration's records took when the adjoint reran the steps (the most it has seen;
    // `SEGMENT` until it has). That measure is of whole chunks, which a stack doubles as it
    // grows, so another K0 may take up to twice K0 times it: half the budget at most.
    let k0 = {
        let mut c = Cursor::before_terminator(func, preheader);
        let at = c.constant(Constant::Global(measured.to_string(), 0));
        let per = c.load(Type::I64, at);
        let chosen = lengths(&mut c, budget / 4, per, 1);
        let zero = c.i64(0);
        let unmeasured = c.icmp(IntPred::Eq, per, zero);
        let default = c.i64(SEGMENT);
        c.select(unmeasured, default, chosen)
    };
    let steps = outline(module, func, header, k0, unchanging, &format!("{}.{namespace}.steps.{k}", func.name))?;
    // K1, the steps calls per segment: a quarter of the budget over the bytes of one copy of
    // the loop's memory (the allocations the steps get, with their sizes).
    let k1 = {
        let call = func.blocks[steps.calls].insts.iter().copied().find(|i| matches!(func.insts[*i].kind, InstKind::Call { .. }));
        let Some(InstKind::Call { args, .. }) = call.map(|i| func.insts[i].kind.clone()) else {
            return Err("internal error: the steps call is gone".into());
        };
        let mut c = Cursor::before_terminator(func, preheader);
        let mut bytes = c.i64(0);
        for &(_, size) in &steps.sized {
            bytes = c.binary(BinOp::Add, bytes, args[size]);
        }
        lengths(&mut c, budget / 4, bytes, 2)
    };
    // The loop calling the steps is the next level's loop.
    let name = format!("{}.{namespace}.segments.{k}", func.name);
    let segments = outline(module, func, steps.calls, k1, unchanging, &name)?;
    Ok((steps, segments))
}

/// `share / per` (`per` taken as 1 when 0), kept within `[least, MAX_LENGTH]`.
fn lengths(c: &mut Cursor, share: u64, per: Value, least: i64) -> Value {
    let divisor = c.unsigned_at_least(per, 1);
    let share = c.i64(share.min(i64::MAX as u64) as i64);
    let n = c.binary(BinOp::UDiv, share, divisor);
    let n = c.unsigned_at_least(n, least);
    c.unsigned_at_most(n, MAX_LENGTH)
}

/// The CFG and loops of `func`, and the index of the loop headed by `header`.
fn loop_at(func: &Function, header: Block) -> Result<(ControlFlowGraph, LoopAnalysis, usize), String> {
    let cfg = ControlFlowGraph::compute(func);
    let loops = LoopAnalysis::compute(func, &cfg, &DominatorTree::compute(func, &cfg));
    let l = loops
        .loops()
        .iter()
        .position(|lp| lp.header == header)
        .ok_or_else(|| "internal error: the loop to segment is gone".to_string())?;
    Ok((cfg, loops, l))
}

/// The loop's preheader, when the loop has the shape `outline` needs: one latch, a
/// preheader that only enters it, one exit block entered only from the loop, no way out of
/// the function inside it, no `alloca` or `invoke` in it, and its values used after it only
/// through the exit block's phis (LCSSA), none of them pointers.
fn check_shape(func: &Function, cfg: &ControlFlowGraph, loops: &LoopAnalysis, l: usize) -> Result<Block, String> {
    if !func.handlers.is_empty() {
        return Err("the function has exception handlers".into());
    }
    let lp = &loops.loops()[l];
    let inside: HashSet<Block> = lp.blocks.iter().copied().collect();
    let preds = cfg.preds(lp.header);
    let preheader = match (preds.len(), lp.latches.len()) {
        (2, 1) => preds.iter().copied().find(|p| !inside.contains(p)).ok_or("it has no preheader")?,
        _ => return Err("it has several back edges or entries".into()),
    };
    if func.successors(preheader) != [lp.header] {
        return Err("it has no preheader".into());
    }
    let [exit] = lp.exits[..] else { return Err("it has several exits (a `break` or `return` inside it)".into()) };
    if !cfg.preds(exit).iter().all(|p| inside.contains(p)) {
        return Err("its exit block is entered from outside it".into());
    }
    for &b in &lp.blocks {
        if func.successors(b).is_empty() {
            return Err("it returns from inside".into());
        }
        for &i in &func.blocks[b].insts {
            match &func.insts[i].kind {
                InstKind::Alloca { .. } => return Err("it has an `alloca` inside".into()),
                InstKind::Call { unwind: Some(_), .. } => return Err("it has a call that may throw".into()),
                InstKind::Phi { .. } if b == lp.header => {
                    let ty = func.ty(func.result(i).expect("a phi's value"));
                    if ty.is_ptr() || ty.holds_pointers() {
                        return Err("it carries a pointer from one iteration to the next".into());
                    }
                }
                _ => {}
            }
        }
    }
    let block_of = crate::tape::inst_blocks(func);
    let from_inside = |v: Value| func.def_inst(v).is_some_and(|d| inside.contains(&block_of[d]));
    for (b, i) in func.inst_order() {
        if inside.contains(&b) {
            continue;
        }
        match &func.insts[i].kind {
            InstKind::Phi { incoming } if b == exit => {
                let ty = func.ty(func.result(i).expect("a phi's value"));
                if (ty.is_ptr() || ty.holds_pointers()) && incoming.iter().any(|(_, v)| from_inside(*v)) {
                    return Err("it leaves a pointer to the code after it".into());
                }
            }
            kind if kind.operands().into_iter().any(from_inside) => {
                return Err("a value it defines is used after it other than through its exit's phis".into())
            }
            _ => {}
        }
    }
    Ok(preheader)
}

/// Outlines the loop of `func` headed by `header` into a new function `name` that runs up to `limit` of its
/// iterations (see the module's comment), and makes the loop a loop of calls of it. Returns
/// the function, its sized parameters, and the block of `func` that calls it.
fn outline(
    module: &Module,
    func: &mut Function,
    header: Block,
    limit: Value,
    unchanging: bool,
    name: &str,
) -> Result<Outlined, String> {
    let (cfg, loops, l) = loop_at(func, header)?;
    let preheader = check_shape(func, &cfg, &loops, l)?;
    let lp = loops.loops()[l].clone();
    let inside: HashSet<Block> = lp.blocks.iter().copied().collect();
    let exit = lp.exits[0];
    let latch = lp.latches[0];
    let block_of = crate::tape::inst_blocks(func);
    let defined_inside = |func: &Function, v: Value| func.def_inst(v).is_some_and(|d| inside.contains(&block_of[d]));
    let header_phis: Vec<Inst> = func.phis(lp.header).collect();
    let exit_phis: Vec<Inst> = func.phis(exit).collect();
    // The state: each header phi's value, then each exit phi's.
    let mut fields: Vec<Type> = Vec::new();
    for &phi in header_phis.iter().chain(&exit_phis) {
        fields.push(func.ty(func.result(phi).expect("a phi's value")).clone());
    }
    // Live-ins: values defined before the loop that it uses (the header phis' starting
    // values are passed through the state instead).
    let mut live_in: Vec<Value> = Vec::new();
    for &b in &lp.blocks {
        for &i in &func.blocks[b].insts {
            let operands: Vec<Value> = match &func.insts[i].kind {
                InstKind::Phi { incoming } if b == lp.header => {
                    incoming.iter().filter(|(p, _)| *p != preheader).map(|(_, v)| *v).collect()
                }
                kind => kind.operands(),
            };
            for v in operands {
                if func.constant(v).is_none() && !defined_inside(func, v) && !live_in.contains(&v) {
                    live_in.push(v);
                }
            }
        }
    }
    // Pointers become their allocations: the segment gets each allocation and its size, and
    // computes the pointers from it.
    let mut roots: Vec<Value> = Vec::new();
    let mut plain: Vec<Value> = Vec::new();
    let mut chains: Vec<Inst> = Vec::new();
    // Pointers into the parameters' memory of a function whose memory nothing changes.
    let mut unchanged: Vec<Value> = Vec::new();
    for &v in &live_in {
        let ty = func.ty(v).clone();
        if ty.is_ptr() && unchanging && matches!(root(module, func, v), Root::Param(_)) {
            unchanged.push(v);
        } else if ty.is_ptr() {
            let Root::Fresh(r) = root(module, func, v) else {
                return Err(format!(
                    "it uses a pointer that does not point into memory `{}` allocates (a parameter's memory cannot be copied for a checkpoint: its size is unknown)",
                    func.name
                ));
            };
            if allocation_size(func, r).is_none() {
                return Err("it uses memory of unknown size".into());
            }
            if !roots.contains(&r) {
                roots.push(r);
            }
            chain(func, v, r, &mut chains, &mut plain);
        } else if matches!(ty, Type::Vector(..)) {
            // Vectors are made again in the segment from the scalars they were made of
            // (a vector cannot be an active argument).
            rebuild(module, func, v, unchanging, &mut chains, &mut plain)?;
        } else if ty.holds_pointers() || matches!(ty, Type::Struct(_) | Type::Array(..)) {
            return Err("it uses an aggregate made before it".into());
        } else if !plain.contains(&v) {
            plain.push(v);
        }
    }
    plain.retain(|v| !roots.contains(v));
    // The pointers vectors were loaded from (`rebuild`) are unchanging memory's.
    for v in plain.iter().copied().filter(|v| func.ty(*v).is_ptr()).collect::<Vec<_>>() {
        if !unchanged.contains(&v) {
            unchanged.push(v);
        }
    }
    plain.retain(|v| !func.ty(*v).is_ptr());
    // The state, an alloca of the function (a root like the others).
    let state = (!fields.is_empty()).then(|| {
        let entry = func.entry().expect("a function with a body");
        let mut c = Cursor::at_start(func, entry);
        let state_ty = Type::structure(fields.clone());
        let v = c.alloca(state_ty.clone());
        roots.insert(0, v);
        (v, state_ty)
    });
    // The sizes, computed in the preheader.
    let mut sizes = Vec::new();
    for &r in &roots {
        let size = allocation_size(func, r).expect("checked above");
        sizes.push(size.bytes(&mut Cursor::before_terminator(func, preheader)));
    }
    let loc = loop_loc(func, &lp);

    // The segment function: a copy of `func` keeping only the loop.
    let mut g = func.clone();
    g.name = name.to_string();
    // Its parameters are its own (none `noalias`).
    g.noalias.clear();
    g.linkage = Linkage::Internal;
    g.attributes.retain(|a| a != "noinline" && a != "optnone");
    g.params.clear();
    g.sig = Signature::new(vec![], Type::I1);
    let mut sized = Vec::new();
    let mut args = Vec::new();
    for (&r, &size) in roots.iter().zip(&sizes) {
        let p = adopt_param(&mut g, r);
        g.add_param(Type::I64);
        sized.push((p, g.params.len() - 1));
        args.push(r);
        args.push(size);
    }
    let mut passed = Vec::new();
    for &v in &unchanged {
        passed.push(adopt_param(&mut g, v));
        args.push(v);
    }
    for &v in &plain {
        adopt_param(&mut g, v);
        args.push(v);
    }
    let g_limit = g.add_param(Type::I64);
    args.push(limit);

    let entry = g.create_block(Some("segment.entry".into()));
    let check = g.create_block(Some("segment.check".into()));
    let pause = g.create_block(Some("segment.pause".into()));
    let done = g.create_block(Some("segment.done".into()));
    g.layout = std::iter::once(entry)
        .chain(func.layout.iter().copied().filter(|b| inside.contains(b)))
        .chain([check, pause, done])
        .collect();
    g.handlers.clear();
    // A local array of the function is a parameter here: its lifetime markers, which LLVM
    // allows on allocas only, go (they are hints).
    for &b in &lp.blocks {
        let insts = std::mem::take(&mut g.blocks[b].insts);
        g.blocks[b].insts = insts
            .into_iter()
            .filter(|i| {
                !matches!(&g.insts[*i].kind, InstKind::Call { callee: Callee::Direct(c), .. } if c.starts_with("llvm.lifetime."))
            })
            .collect();
    }
    // The pointers the loop uses, computed from the allocations' parameters.
    for &i in &chains {
        g.blocks[entry].insts.push(i);
    }
    let mut c = Cursor::at_end(&mut g, entry);
    let field = |c: &mut Cursor, k: usize| {
        let (s, ty) = state.as_ref().expect("a state");
        c.field_ptr(ty, s.to_owned(), &[k as u32])
    };
    let mut starts = Vec::new();
    for (k, _) in header_phis.iter().enumerate() {
        let at = field(&mut c, k);
        starts.push(c.load(fields[k].clone(), at));
    }
    c.br(lp.header);
    // The header: phis start from the state; a count of the iterations in this segment.
    for (k, &phi) in header_phis.iter().enumerate() {
        if let InstKind::Phi { incoming } = &mut g.insts[phi].kind {
            for (b, v) in incoming.iter_mut() {
                if *b == preheader {
                    *b = entry;
                    *v = starts[k];
                } else if *b == latch {
                    *b = check;
                }
            }
        }
    }
    let zero = g.constant_value(Constant::int(64, 0));
    let count_inst = g.make_inst(InstKind::Phi { incoming: vec![] }, Type::I64);
    g.blocks[lp.header].insts.insert(0, count_inst);
    let count = g.result(count_inst).expect("a phi's value");
    // The back edge goes through the check; the exit edges through `done`.
    let term = g.terminator(latch).expect("a terminator");
    for b in g.insts[term].kind.blocks_mut() {
        if *b == lp.header {
            *b = check;
        }
    }
    for &b in &lp.blocks {
        let Some(term) = g.terminator(b) else { continue };
        for dest in g.insts[term].kind.blocks_mut() {
            if *dest == exit {
                *dest = done;
            }
        }
    }
    let mut c = Cursor::at_end(&mut g, check);
    let one = c.i64(1);
    let next = c.binary(BinOp::Add, count, one);
    let more = c.icmp(IntPred::Slt, next, g_limit);
    c.cond_br(more, lp.header, pause);
    if let InstKind::Phi { incoming } = &mut g.insts[count_inst].kind {
        *incoming = vec![(entry, zero), (check, next)];
    }
    // Pause: the next iteration's starting values into the state.
    let mut c = Cursor::at_end(&mut g, pause);
    for (k, &phi) in header_phis.iter().enumerate() {
        let InstKind::Phi { incoming } = &c.func.insts[phi].kind else { unreachable!() };
        let v = incoming.iter().find(|(b, _)| *b == check).map(|(_, v)| *v).expect("a value from the latch");
        let at = field(&mut c, k);
        c.store(v, at);
    }
    let no = c.constant(Constant::bool(false));
    c.ret(Some(no));
    // Done: the values the loop leaves with into the state.
    let mut c = Cursor::at_end(&mut g, done);
    for (k, &phi) in exit_phis.iter().enumerate() {
        let InstKind::Phi { incoming } = c.func.insts[phi].kind.clone() else { unreachable!() };
        let ty = fields[header_phis.len() + k].clone();
        c.emit(InstKind::Phi { incoming: incoming.into_iter().filter(|(b, _)| inside.contains(b)).collect() }, ty);
    }
    let phis: Vec<Value> = c.func.blocks[done].insts.iter().filter_map(|i| c.func.result(*i)).collect();
    for (k, v) in phis.into_iter().enumerate() {
        let at = field(&mut c, header_phis.len() + k);
        c.store(v, at);
    }
    let yes = c.constant(Constant::bool(true));
    c.ret(Some(yes));

    // The function: the state starts with the phis' first values; the loop becomes calls.
    let call_block = func.create_block(Some("segment.call".into()));
    let mut c = Cursor::before_terminator(func, preheader);
    for (k, &phi) in header_phis.iter().enumerate() {
        let InstKind::Phi { incoming } = &c.func.insts[phi].kind else { unreachable!() };
        let v = incoming.iter().find(|(b, _)| *b == preheader).map(|(_, v)| *v).expect("a value from the preheader");
        let at = field(&mut c, k);
        c.store(v, at);
    }
    let term = func.terminator(preheader).expect("a terminator");
    func.insts[term].kind = InstKind::Br { dest: call_block };
    let sig = g.sig.clone();
    let mut c = Cursor::at_end(func, call_block);
    let finished =
        c.emit(InstKind::Call { callee: Callee::Direct(name.into()), sig, args, unwind: None }, Type::I1).expect("a result");
    c.cond_br(finished, exit, call_block);
    if let Some(&call) = func.blocks[call_block].insts.first() {
        func.insts[call].loc = loc;
    }
    // The exit's phis become loads of the state.
    let mut c = Cursor::at_start(func, exit);
    let mut replaced = HashMap::new();
    for (k, &phi) in exit_phis.iter().enumerate() {
        let at = field(&mut c, header_phis.len() + k);
        let v = c.load(fields[header_phis.len() + k].clone(), at);
        replaced.insert(c.func.result(phi).expect("a phi's value"), v);
    }
    func.blocks[exit].insts.retain(|i| !exit_phis.contains(i));
    for (_, i) in func.inst_order().collect::<Vec<_>>() {
        for v in func.insts[i].kind.operands_mut() {
            if let Some(r) = replaced.get(v) {
                *v = *r;
            }
        }
    }
    func.layout.retain(|b| !inside.contains(b));
    // Keep the new block where the loop was, for readable output.
    func.layout.retain(|b| *b != call_block);
    let at = func.layout.iter().position(|b| *b == preheader).map_or(func.layout.len(), |p| p + 1);
    func.layout.insert(at, call_block);
    if let Some((s, _)) = &state {
        type_state_accesses(&mut g, *s);
        type_state_accesses(func, *s);
    }
    zyg_ir::verify::verify(&g).map_err(|e| format!("internal error: the segment function does not verify: {e}"))?;
    zyg_ir::verify::verify(func).map_err(|e| format!("internal error: the segmented function does not verify: {e}"))?;
    Ok(Outlined { function: g, sized, passed, calls: call_block })
}

/// Says what each scalar field of the state struct at `state` holds on the loads and stores
/// of it (as clang's type metadata would): the state mixes integers (a counter) and floats,
/// and without the hint the type analysis of memory could take an integer read back from it
/// for float bits.
fn type_state_accesses(func: &mut Function, state: Value) {
    let accesses: Vec<(Inst, Type)> = func
        .inst_order()
        .filter_map(|(_, i)| {
            let (ty, ptr) = match &func.insts[i].kind {
                InstKind::Load { ty, ptr } => (ty.clone(), *ptr),
                InstKind::Store { value, ptr } => (func.ty(*value).clone(), *ptr),
                _ => return None,
            };
            let at = func.def_inst(ptr)?;
            matches!(&func.insts[at].kind, InstKind::Gep { base, .. } if *base == state).then_some((i, ty))
        })
        .collect();
    for (i, ty) in accesses {
        let kind = match &ty {
            Type::Int(_) => ScalarKind::Integer,
            Type::Float(f) => ScalarKind::Float(*f),
            Type::Ptr(_) => ScalarKind::Pointer,
            _ => continue,
        };
        let Some((size, _)) = ty.natural_layout() else { continue };
        func.insts[i].hint = Some(vec![(0, size, kind)].into());
    }
}

/// Adds to `chains` the instructions making vector `v` (before the loop) from scalars, which
/// go to `plain`: insertions, shuffles, arithmetic, casts, and loads from memory nothing
/// changes (`unchanging`: a parameter's of a function whose parameters' memory is).
fn rebuild(
    module: &Module,
    func: &Function,
    v: Value,
    unchanging: bool,
    chains: &mut Vec<Inst>,
    plain: &mut Vec<Value>,
) -> Result<(), String> {
    let Some(inst) = func.def_inst(v) else { return Err("it uses a vector parameter".into()) };
    let kind = &func.insts[inst].kind;
    if let InstKind::Load { ptr, .. } = kind {
        if !(unchanging && matches!(root(module, func, *ptr), Root::Param(_))) {
            return Err("it uses a vector loaded before it from memory that may change".into());
        }
        // The pointer is passed on as it is (a parameter of the segment).
        if !plain.contains(ptr) {
            plain.push(*ptr);
        }
        if !chains.contains(&inst) {
            chains.push(inst);
        }
        return Ok(());
    }
    if !matches!(
        kind,
        InstKind::InsertElement { .. }
            | InstKind::ShuffleVector { .. }
            | InstKind::Binary { .. }
            | InstKind::Cast { .. }
            | InstKind::Select { .. }
    ) {
        return Err("it uses a vector made before it other than from scalars".into());
    }
    for o in kind.operands() {
        if func.constant(o).is_some() || chains.iter().any(|c| func.result(*c) == Some(o)) {
            continue;
        }
        match func.ty(o) {
            Type::Vector(..) => rebuild(module, func, o, unchanging, chains, plain)?,
            Type::Int(_) | Type::Float(_) if !plain.contains(&o) => plain.push(o),
            Type::Int(_) | Type::Float(_) => {}
            _ => return Err("it uses a vector made before it other than from scalars".into()),
        }
    }
    if !chains.contains(&inst) {
        chains.push(inst);
    }
    Ok(())
}

/// Makes `v` (a value of the copy defined before the loop) a parameter of the copy.
fn adopt_param(g: &mut Function, v: Value) -> usize {
    let index = g.params.len();
    g.values[v].def = ValueDef::Param(index as u32);
    g.params.push(v);
    g.sig.params.push(g.values[v].ty.clone());
    index
}

/// The `getelementptr`s and casts from allocation `root` to `v`, root first, added to
/// `chains` (once each); their integer operands made before the loop go to `plain`.
fn chain(func: &Function, v: Value, root: Value, chains: &mut Vec<Inst>, plain: &mut Vec<Value>) {
    if v == root {
        return;
    }
    let Some(inst) = func.def_inst(v) else { return };
    let from = match &func.insts[inst].kind {
        InstKind::Gep { base, indices, .. } => {
            for &i in indices {
                if func.constant(i).is_none() && !plain.contains(&i) {
                    plain.push(i);
                }
            }
            *base
        }
        InstKind::Cast { arg, .. } => *arg,
        _ => return,
    };
    chain(func, from, root, chains, plain);
    if !chains.contains(&inst) {
        chains.push(inst);
    }
}
