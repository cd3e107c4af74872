//! Reloading instead of storing. A value a loop loads would go on the loop's stack every
//! iteration for the backpropagators that read it (`x[i]` for `x[i] * w`'s). When nothing
//! can change that memory between the load and the adjoint, the adjoint loads it again
//! instead (as a hand-written gradient reads its inputs twice): the value leaves the
//! record, and the address is rebuilt as `recompute` rebuilds addresses. This module
//! decides which loads are *stable*; `recompute` then treats a stable load like cheap
//! arithmetic (its address must be rebuildable, or stored once per loop activation).
//!
//! A load is stable when its memory is
//! - a constant global's (nothing may write it); or
//! - a parameter's, in a function whose gradient call runs its primal and its adjoint back
//!   to back (`whole_entries`: a `__enzyme_autodiff` or `--fn` target that no differentiated
//!   function calls or takes the address of, so that no caller's later code runs in
//!   between), and no instruction that may run after the load in the same call (later in
//!   its block, or in any block reachable from it, its own block again included when it is
//!   in a loop) may write that memory. The adjoint writes only shadows, and a checkpointed
//!   call's rerun writes only what the call wrote in the primal, which already counts as a
//!   write after the load.
//!
//! What may write a parameter's memory (`Writes`): a store, atomic, `memset`/copy or `free`
//! through a pointer based on that parameter; through another parameter unless one of the
//! two is `noalias` (C's `restrict`: LLVM's rule that memory accessed through a `noalias`
//! pointer is not written through any pointer not based on it); through a pointer zyg
//! cannot trace to one allocation, parameter or constant (a pointer loaded from memory, a
//! call's result, a mutable global); a call of a function that writes only its own memory
//! and through its parameters (`ReadsOnly` with writes) through the arguments it writes;
//! and any other call, except a pure declaration, an allocation or a harmless intrinsic.
//! Memory a function allocates itself is never a parameter's, so its stores do not count.
//! Allocations' own loads are not reloaded (a `free` would have to wait for the adjoint).

use crate::checkpoint::{self, ReadsOnly, Root};
use crate::conventions::Conventions;
use cranelift_entity::EntitySet;
use std::collections::{HashMap, HashSet};
use zyg_ir::cfg::ControlFlowGraph;
use zyg_ir::loops::LoopAnalysis;
use zyg_ir::{Block, Callee, Function, Inst, InstKind, Module, Value, ValueDef};

/// The gradient targets whose primal and adjoint run back to back within one call: those of
/// `whole` (targets of combined-mode requests and `--fn`'s, not split mode's) that no
/// function reached from `all` (every request's target) calls or takes the address of.
pub fn whole_entries(module: &Module, all: &[String], whole: &[String]) -> HashSet<String> {
    let reached = checkpoint::reached_functions(module, all.iter().map(String::as_str));
    let called = crate::segment::called_or_taken(module, &reached);
    whole.iter().filter(|f| !called.contains(*f)).cloned().collect()
}

/// Where a pointer points, followed through `getelementptr`s and casts (`checkpoint::root`)
/// and through phis and selects whose operands all agree (a pointer induction variable).
fn root(module: &Module, func: &Function, v: Value) -> Root {
    fn walk(module: &Module, func: &Function, v: Value, seen: &mut HashSet<Value>) -> Option<Root> {
        if !seen.insert(v) {
            // A cycle through a phi adds nothing of its own.
            return None;
        }
        let ValueDef::Inst(i) = func.values[v].def else { return Some(checkpoint::root(module, func, v)) };
        let joined: Vec<Value> = match &func.insts[i].kind {
            InstKind::Phi { incoming } => incoming.iter().map(|(_, x)| *x).collect(),
            InstKind::Select { then_value, else_value, .. } => vec![*then_value, *else_value],
            InstKind::Gep { base, .. } => return walk(module, func, *base, seen),
            InstKind::Cast { op: zyg_ir::CastOp::BitCast | zyg_ir::CastOp::AddrSpaceCast, arg } => {
                return walk(module, func, *arg, seen)
            }
            _ => return Some(checkpoint::root(module, func, v)),
        };
        let mut found: Option<Root> = None;
        for x in joined {
            match (walk(module, func, x, seen), &found) {
                (None, _) => {}
                (Some(r), None) => found = Some(r),
                (Some(r), Some(f)) if same(&r, f) => {}
                _ => return Some(Root::Other),
            }
        }
        found
    }
    walk(module, func, v, &mut HashSet::new()).unwrap_or(Root::Other)
}

fn same(a: &Root, b: &Root) -> bool {
    match (a, b) {
        (Root::Param(x), Root::Param(y)) => x == y,
        (Root::Fresh(x), Root::Fresh(y)) => x == y,
        (Root::ConstantGlobal, Root::ConstantGlobal) => true,
        _ => false,
    }
}

/// What an instruction may write.
enum Writes {
    /// Memory no parameter points into (none, or the function's own allocations').
    Nothing,
    /// Memory based on these parameters.
    Params(Vec<usize>),
    /// Memory zyg cannot place: any parameter's.
    Anything,
}

/// The stable loads of `func` (see the module's comment): loads in loops, of memory that
/// does not change before the adjoint reloads it. `whole_entry`: whether `func`'s gradient
/// runs its primal and adjoint back to back (`whole_entries`); without it only constant
/// globals' loads are stable.
pub fn stable_loads(
    module: &Module,
    conventions: &Conventions,
    func: &Function,
    cfg: &ControlFlowGraph,
    loops: &LoopAnalysis,
    whole_entry: bool,
) -> HashSet<Inst> {
    let mut candidates: Vec<(Inst, Block, Root)> = Vec::new();
    for (b, inst) in func.inst_order() {
        if let InstKind::Load { ptr, .. } = func.insts[inst].kind {
            if loops.may_repeat(b) {
                candidates.push((inst, b, root(module, func, ptr)));
            }
        }
    }
    let mut stable = HashSet::new();
    if candidates.iter().all(|(_, _, r)| !matches!(r, Root::ConstantGlobal | Root::Param(_))) {
        return stable;
    }
    // Each instruction's writes, for the parameters read from.
    let mut reads_only = ReadsOnly::new(module, conventions, true);
    let writes: HashMap<Inst, Writes> = if whole_entry {
        func.inst_order().map(|(_, i)| (i, writes_of(module, conventions, func, i, &mut reads_only))).collect()
    } else {
        HashMap::new()
    };
    let may_change = |w: &Writes, k: usize| match w {
        Writes::Nothing => false,
        Writes::Anything => true,
        Writes::Params(ps) => ps.iter().any(|j| *j == k || !(func.noalias.contains(j) || func.noalias.contains(&k))),
    };
    // For each parameter read from: the blocks from which a block that may change its
    // memory is reachable in one step or more.
    let mut reaching: HashMap<usize, EntitySet<Block>> = HashMap::new();
    for &(inst, b, ref r) in &candidates {
        let k = match r {
            Root::ConstantGlobal => {
                stable.insert(inst);
                continue;
            }
            Root::Param(k) if whole_entry => *k,
            _ => continue,
        };
        let blocks = reaching.entry(k).or_insert_with(|| {
            let changing =
                func.layout.iter().copied().filter(|b| func.blocks[*b].insts.iter().any(|i| may_change(&writes[i], k)));
            if tracing::enabled!(tracing::Level::DEBUG) {
                // -vv: what keeps the parameter's loads on the tape.
                if let Some(w) = func.inst_order().map(|(_, i)| i).find(|i| may_change(&writes[i], k)) {
                    let at = func.insts[w].loc.as_ref().map(|l| format!(" (line {})", l.line)).unwrap_or_default();
                    let what = zyg_ir::text::print_inst(func, w);
                    tracing::debug!("{}: parameter {k}'s memory may change in the call{at}: `{}`", func.name, what.trim());
                }
            }
            reaches(cfg, changing)
        });
        if blocks.contains(b) {
            continue;
        }
        let insts = &func.blocks[b].insts;
        let at = insts.iter().position(|i| *i == inst).expect("a block's instruction");
        if !insts[at + 1..].iter().any(|i| may_change(&writes[i], k)) {
            stable.insert(inst);
        }
    }
    stable
}

/// The blocks from which one of `targets` is reachable along one edge or more.
fn reaches(cfg: &ControlFlowGraph, targets: impl Iterator<Item = Block>) -> EntitySet<Block> {
    let mut out: EntitySet<Block> = EntitySet::new();
    let mut work: Vec<Block> = targets.collect();
    while let Some(b) = work.pop() {
        for &p in cfg.preds(b) {
            if out.insert(p) {
                work.push(p);
            }
        }
    }
    out
}

/// What `inst` may write (`Writes`).
fn writes_of(module: &Module, conventions: &Conventions, func: &Function, inst: Inst, reads_only: &mut ReadsOnly) -> Writes {
    let through = |ptrs: &[Value]| {
        let mut params = Vec::new();
        // Only pointers carry writes (a null argument none).
        for p in ptrs
            .iter()
            .filter(|p| func.ty(**p).is_ptr() && func.constant(**p).is_none_or(|c| matches!(c, zyg_ir::Constant::Global(..))))
        {
            match root(module, func, *p) {
                Root::Param(k) => params.push(k),
                Root::Fresh(_) | Root::ConstantGlobal => {}
                Root::Other => return Writes::Anything,
            }
        }
        if params.is_empty() {
            Writes::Nothing
        } else {
            Writes::Params(params)
        }
    };
    let kind = &func.insts[inst].kind;
    match kind {
        InstKind::Store { ptr, .. }
        | InstKind::AtomicFAdd { ptr, .. }
        | InstKind::AtomicRmw { ptr, .. }
        | InstKind::CmpXchg { ptr, .. } => through(&[*ptr]),
        InstKind::Call { callee: Callee::Direct(name), args, .. } => {
            if let Some((_, dst, _, _)) = crate::memory::mem_op(kind) {
                through(&[dst])
            } else if crate::activity::is_allocation(kind) && !crate::memory::is_realloc(kind) {
                Writes::Nothing
            } else if conventions.frees(name) {
                through(&args[..1.min(args.len())])
            } else if module.function(name).is_some_and(|g| !g.is_declaration()) {
                if !reads_only.holds(name) {
                    return Writes::Anything;
                }
                let written: Vec<Value> =
                    args.iter().enumerate().filter(|(j, _)| reads_only.writes_through(name, *j)).map(|(_, a)| *a).collect();
                through(&written)
            } else if checkpoint::touches_no_program_memory(module, name) {
                Writes::Nothing
            } else {
                Writes::Anything
            }
        }
        InstKind::Call { .. } => Writes::Anything,
        _ => Writes::Nothing,
    }
}
