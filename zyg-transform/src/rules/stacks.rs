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
//! Forward mode only: reverse mode over such a gradient would need the popped shadow
//! records to outlive the outer primal (its adjoint reads them), which a stack that
//! releases its chunks as it pops does not give; it is refused.

use super::{Choice, Classify, Pullback, RuleFamily};
use crate::adjoint::Reverse;
use crate::alphas::Alphas;
use crate::error::TransformError;
use crate::stack::{op_of, Op};
use crate::tangent::Tangent;
use zyg_ir::{Callee, Inst, InstKind};

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
        if kind.operands().first().is_some_and(|header| cx.nullable.contains(*header)) {
            return Err(TransformError::at(
                cx.func,
                inst,
                "internal error: the shadow of a generated gradient's tape stack may be null (the tape reached the \
                 gradient through memory zyg does not differentiate)",
            ));
        }
        Ok(Some(Choice::Pullback(Pullback::Stack(op))))
    }

    fn alphas(&self, _needs: &mut Alphas, _inst: Inst, _pullback: &Pullback) {}

    fn reverse(&self, cx: &mut Reverse, _pullback: &Pullback) -> Result<(), TransformError> {
        Err(TransformError::at(
            cx.func(),
            cx.inst,
            "reverse mode over a generated gradient whose tape has stacks (the inner derivative has a loop) is not \
             supported yet; for second derivatives take forward mode over reverse (`__enzyme_fwddiff` of the function \
             that calls `__enzyme_autodiff`)",
        ))
    }

    /// `push` and `top`: their records' shadows are made beside them; `pop` and `free` are
    /// repeated on the shadow header.
    fn tangent(&self, cx: &mut Tangent, pullback: &Pullback) -> Result<(), TransformError> {
        let Pullback::Stack(Op::Pop | Op::Free) = pullback else { return Ok(()) };
        let InstKind::Call { callee, sig, args } = cx.kind() else { return Ok(()) };
        let mut args = args.clone();
        args[0] = cx.shadow(args[0])?.0;
        let kind = InstKind::Call { callee: callee.clone(), sig: sig.clone(), args };
        cx.cursor().emit(kind, sig.ret.clone());
        Ok(())
    }
}
