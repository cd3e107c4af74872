//! The barriers family: GPU barriers (`__syncthreads()`) and OpenMP's (`__kmpc_barrier`,
//! `rules::openmp`). The adjoint waits at the same point, in
//! reverse order, so that one thread's shadow updates are seen by the others as the
//! primal's stores were (`crate::gpu` decides which updates are atomic).

use super::{Choice, Classify, Pullback, RuleFamily};
use crate::adjoint::Reverse;
use crate::alphas::Alphas;
use crate::error::TransformError;
use crate::tangent::Tangent;
use zyg_ir::{Callee, Inst, InstKind};

pub struct Barriers;

impl RuleFamily for Barriers {
    fn name(&self) -> &'static str {
        "GPU barriers"
    }

    fn classify(&self, cx: &Classify, inst: Inst) -> Result<Option<Choice>, TransformError> {
        Ok(match &cx.func.insts[inst].kind {
            InstKind::Call { callee: Callee::Direct(name), .. } if crate::activity::is_barrier(name) => {
                Some(Choice::Pullback(Pullback::Barrier))
            }
            _ => None,
        })
    }

    /// The barrier's arguments, to call it again.
    fn alphas(&self, needs: &mut Alphas, inst: Inst, _pullback: &Pullback) {
        if let InstKind::Call { args, .. } = &needs.func.insts[inst].kind {
            args.iter().for_each(|a| needs.value(*a));
        }
    }

    fn reverse(&self, cx: &mut Reverse, _pullback: &Pullback) -> Result<(), TransformError> {
        let InstKind::Call { callee, sig, args, .. } = cx.kind() else { return Ok(()) };
        let mut args = args.iter().map(|a| cx.alpha(*a)).collect::<Result<Vec<_>, _>>()?;
        if matches!(callee, Callee::Direct(n) if &**n == crate::activity::OPENMP_BARRIER) {
            // An OpenMP barrier names the calling thread by its global id, and the thread
            // replaying a tape in the adjoint's team is not the one that wrote it.
            let sig = zyg_ir::Signature::new(vec![zyg_ir::Type::PTR], zyg_ir::Type::I32);
            args[1] = cx.cursor().call("__kmpc_global_thread_num", sig, vec![args[0]]).expect("an id");
        }
        let kind = InstKind::Call { callee: callee.clone(), sig: sig.clone(), args, unwind: None };
        cx.cursor().emit(kind, sig.ret.clone());
        Ok(())
    }

    /// The primal's barrier stands: each thread's tangent stores come right after its
    /// primal stores, so the barrier orders them as it orders those.
    fn tangent(&self, _cx: &mut Tangent, _pullback: &Pullback) -> Result<(), TransformError> {
        Ok(())
    }
}
