//! A verifier of zyg-ir functions: the invariants every phase of the transform must keep, and
//! that the LLVM writer relies on. Cranelift runs its verifier after each pass when asked
//! (`verify_if`); zyg runs this one after each phase in debug builds, when `ZYG_VERIFY` is set,
//! and in the tests, so that a phase that breaks SSA fails where it does so rather than as an
//! LLVM verifier error (or a crash in the writer) far away.
//!
//! What is checked:
//! - structure: the layout names each block once, each instruction sits in one block once, a
//!   block ends with its only terminator, phis come first, successors are in the layout;
//! - SSA: every operand is a parameter, a constant or the result of a placed instruction,
//!   whose block dominates the use (in a block: comes before it; for a phi: dominates the
//!   end of the incoming block), in the blocks reachable from the entry;
//! - phis: their incoming blocks are exactly the block's predecessors;
//! - types: the operands of arithmetic, comparisons, selects, phis, branches, returns and
//!   calls agree with each other, the result and the signatures; addresses are pointers.

use crate::cfg::ControlFlowGraph;
use crate::dominance::DominatorTree;
use crate::entities::{Block, Inst, Value};
use crate::function::{Function, ValueDef};
use crate::inst::{Callee, InstKind};
use crate::types::Type;
use cranelift_entity::{EntitySet, SecondaryMap};
use std::fmt;

/// What is wrong with a function: the first problems found (at most `MAX_ERRORS`).
#[derive(Debug, Clone, thiserror::Error)]
pub struct VerifyError {
    pub function: String,
    pub problems: Vec<String>,
}

impl fmt::Display for VerifyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "function `{}` is not valid zyg-ir: {}", self.function, self.problems.join("; "))
    }
}

const MAX_ERRORS: usize = 8;

/// Checks `func` (a declaration is valid).
pub fn verify(func: &Function) -> Result<(), VerifyError> {
    let mut v = Verifier { func, problems: Vec::new(), place: SecondaryMap::new() };
    if !func.is_declaration() && v.structure() {
        let cfg = ControlFlowGraph::compute(func);
        let dom = DominatorTree::compute(func, &cfg);
        for &b in &func.layout {
            for (index, &inst) in func.blocks[b].insts.iter().enumerate() {
                v.operands(&cfg, &dom, b, index, inst);
                v.types(inst);
            }
            if cfg.is_reachable(b) {
                v.phis(&cfg, b);
            }
        }
    }
    match v.problems.is_empty() {
        true => Ok(()),
        false => Err(VerifyError { function: func.name.clone(), problems: v.problems }),
    }
}

struct Verifier<'f> {
    func: &'f Function,
    problems: Vec<String>,
    /// Where each placed instruction is: its block and index.
    place: SecondaryMap<Inst, Option<(Block, usize)>>,
}

impl Verifier<'_> {
    fn problem(&mut self, inst: Option<Inst>, message: String) {
        if self.problems.len() < MAX_ERRORS {
            let at = inst.map(|i| format!(" at `{}`", crate::text::print_inst(self.func, i))).unwrap_or_default();
            self.problems.push(format!("{message}{at}"));
        }
    }

    /// The layout and the blocks' shapes; false where the rest cannot be checked.
    fn structure(&mut self) -> bool {
        let func = self.func;
        let mut seen_blocks = EntitySet::new();
        let mut in_layout = EntitySet::new();
        in_layout.extend(func.layout.iter().copied());
        for &b in &func.layout {
            if func.blocks.get(b).is_none() || !seen_blocks.insert(b) {
                self.problem(None, format!("block {b} is in the layout twice or does not exist"));
                return false;
            }
            let insts = &func.blocks[b].insts;
            if insts.is_empty() {
                self.problem(None, format!("block {} is empty", func.block_label(b)));
                continue;
            }
            let mut past_phis = false;
            for (index, &inst) in insts.iter().enumerate() {
                if func.insts.get(inst).is_none() {
                    self.problem(None, format!("block {} holds an instruction that does not exist", func.block_label(b)));
                    return false;
                }
                if self.place[inst].replace((b, index)).is_some() {
                    self.problem(Some(inst), "an instruction is placed twice".into());
                }
                let kind = &func.insts[inst].kind;
                let last = index + 1 == insts.len();
                if kind.is_terminator() != last {
                    let message = match last {
                        true => format!("block {} does not end with a terminator", func.block_label(b)),
                        false => format!("a terminator in the middle of block {}", func.block_label(b)),
                    };
                    self.problem(Some(inst), message);
                }
                match kind {
                    InstKind::Phi { .. } if past_phis => self.problem(Some(inst), "a phi after other instructions".into()),
                    InstKind::Phi { .. } => {}
                    _ => past_phis = true,
                }
                if let Some(v) = func.insts[inst].result {
                    if func.values[v].def != ValueDef::Inst(inst) {
                        self.problem(Some(inst), format!("the result {v} is not defined by its instruction"));
                    }
                }
                for s in kind.successors() {
                    if !in_layout.contains(s) {
                        self.problem(Some(inst), format!("branch to block {s}, which is not in the layout"));
                    }
                }
            }
        }
        self.problems.is_empty()
    }

    fn operands(&mut self, cfg: &ControlFlowGraph, dom: &DominatorTree, b: Block, index: usize, inst: Inst) {
        let kind = &self.func.insts[inst].kind;
        let incoming: Vec<(Option<Block>, Value)> = match kind {
            InstKind::Phi { incoming } => incoming.iter().map(|(p, v)| (Some(*p), *v)).collect(),
            _ => kind.operands().into_iter().map(|v| (None, v)).collect(),
        };
        for (from, v) in incoming {
            let Some(data) = self.func.values.get(v) else {
                self.problem(Some(inst), format!("operand {v} does not exist"));
                continue;
            };
            let def = match data.def {
                ValueDef::Param(_) | ValueDef::Const(_) => continue,
                ValueDef::Pending => {
                    self.problem(Some(inst), format!("operand {v} was never defined"));
                    continue;
                }
                ValueDef::Inst(def) => def,
            };
            let Some((def_block, def_index)) = self.place[def] else {
                self.problem(Some(inst), format!("operand {v} is the result of an instruction in no block"));
                continue;
            };
            // Dominance is undefined in blocks the entry does not reach (LLVM's rule too).
            let (use_block, use_index) = match from {
                Some(pred) if cfg.is_reachable(pred) => (pred, usize::MAX),
                Some(_) => continue,
                None if cfg.is_reachable(b) => (b, index),
                None => continue,
            };
            let dominates = match def_block == use_block {
                true => def_index < use_index,
                false => cfg.is_reachable(def_block) && dom.dominates(def_block, use_block),
            };
            if !dominates {
                self.problem(Some(inst), format!("operand {v} does not dominate this use"));
            }
        }
    }

    fn phis(&mut self, cfg: &ControlFlowGraph, b: Block) {
        let mut preds = EntitySet::new();
        preds.extend(cfg.preds(b).iter().copied());
        for inst in self.func.phis(b).collect::<Vec<_>>() {
            let InstKind::Phi { incoming } = &self.func.insts[inst].kind else { continue };
            let mut named = EntitySet::new();
            named.extend(incoming.iter().map(|(p, _)| *p));
            let missing = cfg.preds(b).iter().copied().filter(|p| !named.contains(*p));
            let mut missing: Vec<String> = missing.map(|p| self.func.block_label(p)).collect();
            let mut extra: Vec<String> = named.iter().filter(|p| !preds.contains(*p)).map(|p| self.func.block_label(p)).collect();
            if !missing.is_empty() || !extra.is_empty() {
                missing.sort();
                extra.sort();
                self.problem(
                    Some(inst),
                    format!(
                        "a phi's blocks are not its block's predecessors (missing [{}], not predecessors [{}])",
                        missing.join(", "),
                        extra.join(", ")
                    ),
                );
            }
        }
    }

    fn types(&mut self, inst: Inst) {
        let func = self.func;
        let ty = |v: Value| func.values.get(v).map(|d| &d.ty);
        let result = func.insts[inst].result.map(|v| &func.values[v].ty);
        let same = |a: Value, b: Value| ty(a).is_some() && ty(a) == ty(b);
        let pointer = |v: Value| ty(v).is_some_and(Type::is_address);
        let boolean = |v: Value| matches!(ty(v), Some(Type::Int(1))) || ty(v) == result.map(Type::bool_like).as_ref();
        let problem = match &func.insts[inst].kind {
            InstKind::Binary { args: [a, b], .. } if !same(*a, *b) || ty(*a) != result => "the operands and result of arithmetic",
            InstKind::FCmp { args: [a, b], .. } | InstKind::ICmp { args: [a, b], .. }
                if !same(*a, *b) || ty(*a).map(Type::bool_like).as_ref() != result =>
            {
                "the operands and result of a comparison"
            }
            InstKind::Select { then_value, else_value, .. } if !same(*then_value, *else_value) || ty(*then_value) != result => {
                "the values and result of a select"
            }
            InstKind::Select { cond, .. } if !boolean(*cond) => "a select's condition is not a boolean",
            InstKind::Phi { incoming } if incoming.iter().any(|(_, v)| ty(*v) != result) => {
                "a phi's incoming values and its result"
            }
            InstKind::Load { ptr, .. }
            | InstKind::Store { ptr, .. }
            | InstKind::AtomicFAdd { ptr, .. }
            | InstKind::AtomicRmw { ptr, .. }
            | InstKind::CmpXchg { ptr, .. }
                if !pointer(*ptr) =>
            {
                "an address that is not a pointer"
            }
            InstKind::Gep { base, .. } if !pointer(*base) => "a getelementptr's base is not a pointer",
            InstKind::CondBr { cond, .. } if ty(*cond) != Some(&Type::I1) => "a branch's condition is not an i1",
            InstKind::Ret { value } if value.and_then(ty).cloned().unwrap_or(Type::Void) != func.sig.ret => {
                "the returned value and the function's return type"
            }
            InstKind::Call { sig, args, .. }
                if (if sig.variadic { args.len() < sig.params.len() } else { args.len() != sig.params.len() })
                    || args.iter().zip(&sig.params).any(|(a, p)| ty(*a) != Some(p)) =>
            {
                "a call's arguments and its signature"
            }
            InstKind::Call { sig, .. } if result.cloned().unwrap_or(Type::Void) != sig.ret => {
                "a call's result and its signature's return type"
            }
            InstKind::Call { callee: Callee::Indirect(f), .. } if !pointer(*f) => {
                "an indirect call through a value that is not a pointer"
            }
            _ => return,
        };
        self.problem(Some(inst), format!("mismatched types: {problem}"));
    }
}
