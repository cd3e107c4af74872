//! Addresses kept in integers: `(double *)(((uintptr_t)p + 15) & ~15)` (an aligned arena),
//! `p | 1` and `& ~1` (a tagged pointer), `llvm.ptrmask` (what LLVM makes of the former).
//!
//! An integer computed from the address of differentiated memory `p` (through `ptrtoint`
//! and integer arithmetic) has *root* `p`. Turned back into a pointer it points into the
//! same object as `p`, at some offset, so its shadow is the shadow of `p` at the same
//! offset: `shadow(inttoptr i) = gep i8, shadow(p), i - ptrtoint(p)`. Keeping the offset,
//! rather than redoing the arithmetic on the shadow's address, stays right when the shadow
//! is aligned differently from `p` (an alignment mask would pick another element).
//!
//! What zyg cannot follow is refused: an address of differentiated memory stored to memory
//! or passed to a call as an integer (its shadow would be lost), an integer mixing several
//! addresses turned into a pointer, an integer read from differentiated memory turned into
//! a pointer (it may be an address kept there), and a root that does not dominate the
//! `inttoptr` (its shadow could not be named there).

use crate::error::TransformError;
use std::collections::{HashMap, HashSet};
use zyg_ir::dominance::DominatorTree;
use zyg_ir::{BinOp, Callee, CastOp, Function, Inst, InstKind, Value};

/// Where an integer's value comes from, when it comes from an address.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Root {
    /// The address of `p`, moved within `p`'s object.
    Of(Value),
    /// Several addresses, or an address put through arithmetic that does not keep it one
    /// (a multiplication, a hash): not usable as an address.
    Mixed,
}

impl Root {
    fn join(self, other: Root) -> Root {
        if self == other {
            self
        } else {
            Root::Mixed
        }
    }
}

/// Intrinsics that compute an address from an address and nothing else: the result points
/// into the same object, so its shadow follows (`ptrmask` by offset, the invariant-group
/// ones are the identity).
pub fn is_address_intrinsic(name: &str) -> bool {
    name.starts_with("llvm.ptrmask.") || is_address_identity(name)
}

/// `llvm.launder.invariant.group` and `llvm.strip.invariant.group` (C++ devirtualisation)
/// return their argument.
pub fn is_address_identity(name: &str) -> bool {
    name.starts_with("llvm.launder.invariant.group.") || name.starts_with("llvm.strip.invariant.group.")
}

/// The root of an instruction's integer result, given the roots found so far and the
/// shadowed pointers.
pub fn step(func: &Function, kind: &InstKind, shadowed: &HashSet<Value>, roots: &HashMap<Value, Root>) -> Option<Root> {
    let root = |v: &Value| roots.get(v).copied();
    match kind {
        InstKind::Cast { op: CastOp::PtrToInt, arg } => shadowed.contains(arg).then_some(Root::Of(*arg)),
        InstKind::Cast { op: CastOp::ZExt | CastOp::SExt | CastOp::Trunc | CastOp::BitCast, arg } => root(arg),
        InstKind::Unary { arg, .. } => root(arg),
        InstKind::Binary { op, args: [a, b] } => match (root(a), root(b)) {
            (None, None) => None,
            // The difference of two addresses is a plain number.
            (Some(_), Some(_)) if *op == BinOp::Sub => None,
            (Some(_), Some(_)) => Some(Root::Mixed),
            (Some(r), None) if matches!(op, BinOp::Add | BinOp::Sub | BinOp::And | BinOp::Or | BinOp::Xor) => Some(r),
            (None, Some(r)) if matches!(op, BinOp::Add | BinOp::And | BinOp::Or | BinOp::Xor) => Some(r),
            _ => Some(Root::Mixed),
        },
        InstKind::Phi { incoming } => incoming.iter().filter_map(|(_, v)| root(v)).reduce(Root::join),
        InstKind::Select { then_value, else_value, .. } => {
            [then_value, else_value].into_iter().filter_map(root).reduce(Root::join)
        }
        _ => {
            let _ = func;
            None
        }
    }
}

/// Refuses the uses of addresses kept in integers that zyg cannot follow (module comment).
pub fn check(
    func: &Function,
    roots: &HashMap<Value, Root>,
    shadowed: &HashSet<Value>,
    silent: &HashSet<Inst>,
) -> Result<(), TransformError> {
    if roots.is_empty() && !has_int_to_ptr(func) {
        return Ok(());
    }
    let mut dominators: Option<DominatorTree> = None;
    let refuse = |inst: Inst, message: &str| Err(TransformError::at(func, inst, message));
    for (_, inst) in func.inst_order() {
        let kind = &func.insts[inst].kind;
        let escapes = |v: &Value| roots.contains_key(v);
        match kind {
            InstKind::Cast { op: CastOp::IntToPtr, arg } => match roots.get(arg) {
                Some(Root::Mixed) => {
                    return refuse(
                        inst,
                        "this pointer is made from an integer that mixes addresses of differentiated memory (or puts \
                         one through arithmetic that does not keep it an address), so zyg cannot tell which shadow \
                         it has",
                    )
                }
                Some(Root::Of(p)) => {
                    let dom = dominators.get_or_insert_with(|| {
                        let cfg = zyg_ir::cfg::ControlFlowGraph::compute(func);
                        DominatorTree::compute(func, &cfg)
                    });
                    if !dominates(func, dom, *p, inst) {
                        return refuse(
                            inst,
                            "this pointer is made from an integer computed from an address of differentiated memory \
                             that is not available here (it does not dominate this instruction), so zyg cannot \
                             name its shadow",
                        );
                    }
                }
                None if read_from_differentiated_memory(func, *arg, shadowed) => {
                    return refuse(
                        inst,
                        "this pointer is made from an integer read from differentiated memory, which may be an \
                         address kept as an integer; zyg cannot tell which shadow it has. Keep the pointer as a \
                         pointer",
                    )
                }
                None => {}
            },
            InstKind::Store { value, .. } if escapes(value) => {
                return refuse(
                    inst,
                    "an address of differentiated memory is stored to memory as an integer, where zyg cannot keep \
                     its shadow; store it as a pointer",
                )
            }
            InstKind::Call { args, .. } if !silent.contains(&inst) && args.iter().any(escapes) => {
                return refuse(
                    inst,
                    "an address of differentiated memory is passed to this call as an integer, where zyg cannot \
                     keep its shadow; pass it as a pointer",
                )
            }
            InstKind::Call { callee: Callee::Direct(name), args, .. }
                if is_address_intrinsic(name) && args.iter().skip(1).any(escapes) =>
            {
                return refuse(inst, "a pointer mask computed from an address of differentiated memory is not supported")
            }
            InstKind::Ret { value: Some(v) } if escapes(v) => {
                return refuse(
                    inst,
                    "an address of differentiated memory is returned as an integer, where zyg cannot keep its \
                     shadow; return it as a pointer",
                )
            }
            _ => {}
        }
    }
    Ok(())
}

fn has_int_to_ptr(func: &Function) -> bool {
    func.inst_order().any(|(_, i)| matches!(func.insts[i].kind, InstKind::Cast { op: CastOp::IntToPtr, .. }))
}

/// Whether the value of `p` is available at `inst`: a parameter or constant, or defined by
/// an instruction that dominates it.
fn dominates(func: &Function, dom: &DominatorTree, p: Value, inst: Inst) -> bool {
    let Some(def) = func.def_inst(p) else { return true };
    let (Some(def_block), Some(use_block)) = (block_of(func, def), block_of(func, inst)) else { return false };
    if def_block != use_block {
        return dom.dominates(def_block, use_block);
    }
    let insts = &func.blocks[def_block].insts;
    insts.iter().position(|i| *i == def) < insts.iter().position(|i| *i == inst)
}

fn block_of(func: &Function, inst: Inst) -> Option<zyg_ir::Block> {
    func.layout.iter().copied().find(|b| func.blocks[*b].insts.contains(&inst))
}

/// Whether integer `v` is (a cast of) a load from differentiated memory.
fn read_from_differentiated_memory(func: &Function, mut v: Value, shadowed: &HashSet<Value>) -> bool {
    while let Some(i) = func.def_inst(v) {
        match &func.insts[i].kind {
            InstKind::Load { ptr, .. } => return shadowed.contains(ptr),
            InstKind::Cast { op: CastOp::ZExt | CastOp::SExt | CastOp::Trunc | CastOp::BitCast, arg } => v = *arg,
            _ => return false,
        }
    }
    false
}
