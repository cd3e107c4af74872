//! Phase "alphas": what each chosen pullback reads from the primal (Zygote's alphas): the
//! primal values its rule uses, the shadows its memory accesses go through, the tapes of
//! differentiated callees, and the shadow memory of stack arrays. Each rule family says
//! what its pullbacks read (`rules::RuleFamily::alphas`); this collects them. The tape
//! layout (`tape::TapeLayout`) stores them, after the recompute plan has taken out what the
//! adjoint can rebuild instead (`recompute::plan`).

use crate::activity::Activity;
use crate::rules::emit::PrimalCalls;
use crate::rules::Pullbacks;
use crate::tape::TapeNeeds;
use cranelift_entity::EntitySet;
use zyg_ir::{Function, Inst, InstKind, Type, Value};

/// The alphas of the pullbacks of `order` (in that order, each value and shadow once).
pub fn tape_needs(func: &Function, activity: &Activity, order: &[Inst], pullbacks: &Pullbacks, calls: &PrimalCalls) -> TapeNeeds {
    let mut alphas =
        Alphas { func, activity, needs: TapeNeeds::default(), values: EntitySet::new(), shadows: EntitySet::new(), calls };
    for &inst in order {
        let pullback = pullbacks[inst].as_ref().expect("every instruction of the order has a pullback");
        pullback.family().alphas(&mut alphas, inst, pullback);
    }
    let mut needs = alphas.needs;
    // Shadow memory of stack arrays lives in the tape, so it outlives the primal.
    for (_, inst) in func.inst_order() {
        if let (InstKind::Alloca { ty }, Some(v)) = (&func.insts[inst].kind, func.result(inst)) {
            if activity.has_shadow(v) {
                needs.shadow_memory.push((v, ty.clone()));
            }
        }
    }
    needs
}

/// The alphas collected so far, each value and shadow once, in the order they are asked
/// for; what a family's `alphas` adds to.
pub struct Alphas<'a> {
    pub func: &'a Function,
    pub activity: &'a Activity,
    needs: TapeNeeds,
    values: EntitySet<Value>,
    shadows: EntitySet<Value>,
    /// The primal's math calls, which rules read instead of calling again.
    pub calls: &'a PrimalCalls,
}

impl Alphas<'_> {
    /// The primal value `v` (constants are rebuilt in the adjoint, never stored).
    pub fn value(&mut self, v: Value) {
        if self.func.constant(v).is_none() {
            self.any_value(v);
        }
    }

    /// The primal value `v`, even a constant.
    pub fn any_value(&mut self, v: Value) {
        if self.values.insert(v) {
            self.needs.values.push(v);
        }
    }

    /// The shadow of pointer `p`.
    pub fn shadow(&mut self, p: Value) {
        if self.shadows.insert(p) {
            self.needs.shadows.push(p);
        }
    }

    /// The shadow of pointer `p`, when it has one (memory that is differentiated).
    pub fn shadow_if_any(&mut self, p: Value) {
        if self.activity.has_shadow(p) {
            self.shadow(p);
        }
    }

    /// The tape of call `inst`'s callee (or custom derivative), of type `ty`.
    pub fn callee_tape(&mut self, inst: Inst, ty: Type) {
        self.needs.callee_tapes.push((inst, ty));
    }
}
