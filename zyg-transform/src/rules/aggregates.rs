//! The aggregates family: `extractvalue` and `insertvalue`. The adjoint of a field goes to
//! that field of the aggregate's adjoint, and back. (Float casts are arithmetic,
//! `instructions`; casts to and from integers carry no derivative.)

use super::{Choice, Classify, Pullback, RuleFamily};
use crate::adjoint::Reverse;
use crate::alphas::Alphas;
use crate::error::TransformError;
use crate::tangent::Tangent;
use zyg_ir::{Inst, InstKind};

pub struct Aggregates;

impl RuleFamily for Aggregates {
    fn name(&self) -> &'static str {
        "aggregates"
    }

    fn classify(&self, cx: &Classify, inst: Inst) -> Result<Option<Choice>, TransformError> {
        Ok(match cx.func.insts[inst].kind {
            InstKind::ExtractValue { .. } | InstKind::InsertValue { .. } => Some(Choice::Pullback(Pullback::Aggregate)),
            _ => None,
        })
    }

    fn only_moves_the_result(&self, _pullback: &Pullback) -> bool {
        true
    }

    /// Field indices are constants: nothing is read.
    fn alphas(&self, _needs: &mut Alphas, _inst: Inst, _pullback: &Pullback) {}

    fn reverse(&self, cx: &mut Reverse, _pullback: &Pullback) -> Result<(), TransformError> {
        let d = cx.d.expect("aggregate instructions are visited for an active result");
        let func = cx.func();
        match cx.kind() {
            InstKind::ExtractValue { agg, indices } => cx.accumulate_field(*agg, indices, d),
            InstKind::InsertValue { agg, value, indices } => {
                let mut c = cx.cursor();
                let mut part = d;
                for &i in indices {
                    part = c.extract(part, i);
                }
                let empty = c.constant(crate::adjoint::empty_sum(func.ty(*value).clone()));
                let kind = InstKind::InsertValue { agg: d, value: empty, indices: indices.clone() };
                let rest = c.emit(kind, func.ty(*agg).clone()).expect("insertvalue result");
                cx.accumulate(*value, part);
                cx.accumulate(*agg, rest);
            }
            _ => {}
        }
        Ok(())
    }

    /// The same field of the tangent, or the tangent with the field's tangent put in.
    fn tangent(&self, cx: &mut Tangent, _pullback: &Pullback) -> Result<(), TransformError> {
        let Some(v) = cx.result else { return Ok(()) };
        let ty = cx.func().ty(v).clone();
        let kind = match cx.kind() {
            InstKind::ExtractValue { agg, indices } => InstKind::ExtractValue { agg: cx.tangent(*agg), indices: indices.clone() },
            InstKind::InsertValue { agg, value, indices } => {
                let (agg, value) = (cx.tangent(*agg), cx.tangent(*value));
                InstKind::InsertValue { agg, value, indices: indices.clone() }
            }
            _ => return Ok(()),
        };
        let t = cx.cursor().emit(kind, ty).expect("a result");
        cx.set(t);
        Ok(())
    }
}
