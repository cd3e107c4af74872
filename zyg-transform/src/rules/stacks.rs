//! The tape-stack family: calls to the stack helpers of a gradient zyg generated earlier
//! (`crate::stack`), met when that gradient is differentiated again (a nested derivative:
//! a Hessian-vector product is forward mode over a gradient). The records a stack holds
//! are floats the outer derivative must follow, so each stack has a shadow stack, whose
//! header is the shadow of the stack's header (zeroed: an empty stack), and every
//! operation is mirrored on it: the shadow of `push`'s or `top`'s record is the same call
//! on the shadow header (made beside it, `primal::shadow_instructions`), and `pop` and
//! `free` are repeated on the shadow header. The helpers' bodies (a thread's chunk cache)
//! are never differentiated.
//!
//! Reverse mode keeps the shadow stacks' memory for its adjoint, which adds into the shadow
//! records long after the outer primal popped them: the outer primal mirrors `push` with
//! `push_keep` (`primal::shadow_instructions`) and `pop` with `pop_keep` (`pop_kept_stacks`,
//! one of the primal's steps), which never release a chunk, and leaves `free` alone; the records' shadows go on the tape like other
//! pointers' shadows, and the adjoint frees each kept chunk going back past the push that
//! took it (`unpush`). Between a pop and the adjoint a shadow slot may be pushed again; that
//! is memory overwritten, which the adjoints of loads and stores already follow. The kept
//! operations are themselves refused in reverse mode (a third reverse sweep over a loop).

use super::{Choice, Classify, Pullback, RuleFamily};
use crate::adjoint::Reverse;
use crate::alphas::Alphas;
use crate::builder::Cursor;
use crate::error::TransformError;
use crate::stack::{op_of, Op};
use crate::tangent::Tangent;
use crate::Plan;
use std::collections::HashMap;
use zyg_ir::{Callee, Function, Inst, InstKind, Value};

pub struct Stacks;

/// The stack operation `kind` calls, if it calls one.
pub fn stack_call(kind: &InstKind) -> Option<Op> {
    match kind {
        InstKind::Call { callee: Callee::Direct(name), .. } => op_of(name),
        _ => None,
    }
}

impl RuleFamily for Stacks {
    fn name(&self) -> &'static str {
        "tape stacks of generated gradients"
    }

    fn classify(&self, cx: &Classify, inst: Inst) -> Result<Option<Choice>, TransformError> {
        let kind = &cx.func.insts[inst].kind;
        let Some(op) = stack_call(kind) else { return Ok(None) };
        // `unpush` takes a record, not a header, and does nothing with a null one.
        if op != Op::Unpush && kind.operands().first().is_some_and(|header| cx.nullable.contains(*header)) {
            return Err(TransformError::at(
                cx.func,
                inst,
                "this differentiates a gradient zyg generated earlier (a nested derivative) whose tape reaches it \
                 through memory zyg does not differentiate here, so the tape's shadow may be null; differentiating a \
                 gradient that way is not supported yet: request the higher derivative from a function that makes \
                 the inner request itself (see README, Higher-order derivatives)",
            ));
        }
        if !cx.forward && matches!(op, Op::PushKeep | Op::PopKeep | Op::Unpush) {
            return Err(TransformError::at(
                cx.func,
                inst,
                "reverse mode over a generated second derivative whose tape has stacks (a third derivative, reverse over \
                 reverse over reverse, of a function with a loop) is not supported yet; take forward mode for the \
                 outermost request (`__enzyme_fwddiff`)",
            ));
        }
        Ok(Some(Choice::Pullback(Pullback::Stack(op))))
    }

    /// A push's adjoint frees the kept chunk its record's shadow may start.
    fn alphas(&self, needs: &mut Alphas, inst: Inst, pullback: &Pullback) {
        let (Pullback::Stack(Op::Push), InstKind::Call { args, .. }) = (pullback, &needs.func.insts[inst].kind) else {
            return;
        };
        let record = needs.func.result(inst).expect("push returns its record");
        needs.shadow_if_any(record);
        needs.value(args[1]);
    }

    fn reverse(&self, cx: &mut Reverse, pullback: &Pullback) -> Result<(), TransformError> {
        let Pullback::Stack(Op::Push) = pullback else { return Ok(()) };
        if cx.plan().layout.inline_chunks {
            return Err(TransformError::at(
                cx.func(),
                cx.inst,
                "reverse mode over a generated gradient whose tape has stacks (the inner derivative has a loop) is not \
                 supported in GPU code yet; take forward mode over reverse (`__enzyme_fwddiff` of the function that \
                 calls `__enzyme_autodiff`)",
            ));
        }
        let InstKind::Call { args, .. } = cx.kind() else { return Ok(()) };
        let record = cx.func().result(cx.inst).expect("push returns its record");
        if !cx.plan().activity.has_shadow(record) {
            return Ok(());
        }
        let shadow = cx.shadow(record)?;
        let size = cx.alpha(args[1])?;
        let unpush = Op::Unpush.name(&cx.plan().namespace);
        cx.cursor().call(&unpush, crate::stack::signature(Op::Unpush), vec![shadow, size]);
        Ok(())
    }

    /// `push` and `top` (and `push_keep`): their records' shadows are made beside them;
    /// `pop`, `free`, `pop_keep` and `unpush` are repeated on the shadow header (or record).
    fn tangent(&self, cx: &mut Tangent, pullback: &Pullback) -> Result<(), TransformError> {
        let Pullback::Stack(Op::Pop | Op::Free | Op::PopKeep | Op::Unpush) = pullback else { return Ok(()) };
        let InstKind::Call { callee, sig, args, .. } = cx.kind() else { return Ok(()) };
        let mut args = args.clone();
        args[0] = cx.shadow(args[0])?.0;
        let kind = InstKind::Call { callee: callee.clone(), sig: sig.clone(), args, unwind: None };
        cx.cursor().emit(kind, sig.ret.clone());
        Ok(())
    }
}

/// After each `pop` of a generated gradient's tape stack, the same on its shadow stack,
/// keeping the chunk (a `free` of the stack is left to the adjoint, which frees each kept
/// chunk going back past the push that took it). A step of reverse mode's primal.
pub fn pop_kept_stacks(plan: &Plan, p: &mut Function, shadows: &HashMap<Value, Value>) {
    for (inst, pullback) in super::chosen(&plan.pullbacks) {
        let Pullback::Stack(Op::Pop) = pullback else { continue };
        let InstKind::Call { args, .. } = &plan.func.insts[inst].kind else { continue };
        let Some(&header) = shadows.get(&args[0]) else { continue };
        let b = plan.block_of[inst];
        let at = crate::primal::position(p, b, inst) + 1;
        let mut c = Cursor { func: p, block: b, at: Some(at) };
        c.call(&Op::PopKeep.name(&plan.namespace), crate::stack::signature(Op::PopKeep), vec![header, args[1]]);
    }
}
