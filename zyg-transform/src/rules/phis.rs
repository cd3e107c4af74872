//! The phis family: a phi's adjoint goes to the value each predecessor gave it, which is a
//! matter of the reversed CFG (`adjoint` routes it on each edge); nothing is emitted per
//! phi, and nothing is read from the primal.

use super::{Choice, Classify, Pullback, RuleFamily};
use crate::adjoint::Reverse;
use crate::alphas::Alphas;
use crate::error::TransformError;
use crate::tangent::Tangent;
use zyg_ir::{Inst, InstKind};

pub struct Phis;

impl RuleFamily for Phis {
    fn name(&self) -> &'static str {
        "phis"
    }

    fn classify(&self, cx: &Classify, inst: Inst) -> Result<Option<Choice>, TransformError> {
        Ok(matches!(cx.func.insts[inst].kind, InstKind::Phi { .. }).then_some(Choice::Pullback(Pullback::Phi)))
    }

    fn alphas(&self, _needs: &mut Alphas, _inst: Inst, _pullback: &Pullback) {}

    /// Routed by the reversed CFG walk, not here.
    fn reverse(&self, _cx: &mut Reverse, _pullback: &Pullback) -> Result<(), TransformError> {
        Ok(())
    }

    /// A tangent phi beside the phi, made by the tangent sweep (`tangent`), not here.
    fn tangent(&self, _cx: &mut Tangent, _pullback: &Pullback) -> Result<(), TransformError> {
        Ok(())
    }
}
