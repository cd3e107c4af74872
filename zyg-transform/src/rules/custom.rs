//! The custom family: calls to a function the user registered a derivative for
//! (`crate::custom::CustomRule`), asked before any other family of calls ("rules before
//! decomposition"). The primal runs the registered augmented forward (`forward`); the
//! adjoint calls the registered reverse with the arguments, each pointer followed by its
//! shadow, the result's adjoint and the tape, and adds what it returns to the float
//! arguments' adjoints.

use super::{Choice, Classify, Pullback, RuleFamily};
use crate::adjoint::Reverse;
use crate::alphas::Alphas;
use crate::builder::Cursor;
use crate::custom::{CustomKind, CustomRule};
use crate::error::TransformError;
use crate::tangent::Tangent;
use crate::Plan;
use std::collections::HashMap;
use zyg_ir::{Callee, Constant, Function, Inst, InstKind, Type, Value};

pub struct Custom;

impl RuleFamily for Custom {
    fn name(&self) -> &'static str {
        "registered derivatives"
    }

    fn classify(&self, cx: &Classify, inst: Inst) -> Result<Option<Choice>, TransformError> {
        let InstKind::Call { callee: Callee::Direct(name), sig, .. } = &cx.func.insts[inst].kind else { return Ok(None) };
        let Some(rule) = cx.custom.get(&**name) else { return Ok(None) };
        let (reverse, reverse_sig) = rule.reverse();
        if rule.is_tangent() {
            let expected = crate::custom::CustomRule::expected_tangent_params(&sig.params);
            if reverse_sig.params.len() != expected {
                return Err(TransformError::at(
                    cx.func,
                    inst,
                    format!(
                        "the registered forward derivative `{reverse}` of `{name}` takes {} parameters, but zyg passes \
                         {expected} (the arguments, a tangent or shadow after each float and pointer)",
                        reverse_sig.params.len()
                    ),
                ));
            }
            let pair = Type::structure(vec![sig.ret.clone(), sig.ret.clone()]);
            if reverse_sig.ret != sig.ret && !(sig.ret != Type::Void && reverse_sig.ret == pair) {
                return Err(TransformError::at(
                    cx.func,
                    inst,
                    format!(
                        "the registered forward derivative `{reverse}` of `{name}` returns {}; it must return the \
                         tangent of the result ({}) or the result and its tangent ({pair})",
                        reverse_sig.ret, sig.ret
                    ),
                ));
            }
            return Ok(Some(Choice::Pullback(Pullback::Custom(Box::new(rule.clone())))));
        }
        let expected = rule.expected_reverse_params(&sig.params, &sig.ret);
        if reverse_sig.params.len() != expected {
            return Err(TransformError::at(
                cx.func,
                inst,
                format!(
                    "the registered derivative `{reverse}` of `{name}` takes {} parameters, but zyg passes {expected} \
                     (the arguments, a shadow after each pointer, the result's adjoint when it returns a float{})",
                    reverse_sig.params.len(),
                    if rule.has_tape() { ", the tape" } else { "" }
                ),
            ));
        }
        Ok(Some(Choice::Pullback(Pullback::Custom(Box::new(rule.clone())))))
    }

    /// The arguments and their shadows, and the augmented forward's tape.
    fn alphas(&self, needs: &mut Alphas, inst: Inst, pullback: &Pullback) {
        let (Pullback::Custom(rule), InstKind::Call { args, .. }) = (pullback, &needs.func.insts[inst].kind) else { return };
        for &a in args {
            needs.value(a);
            needs.shadow_if_any(a);
        }
        if rule.has_tape() {
            needs.callee_tape(inst, Type::PTR);
        }
    }

    fn reverse(&self, cx: &mut Reverse, pullback: &Pullback) -> Result<(), TransformError> {
        let Pullback::Custom(rule) = pullback else { return Ok(()) };
        let func = cx.func();
        let InstKind::Call { args, sig, .. } = cx.kind() else { return Ok(()) };
        let mut reverse_args = Vec::new();
        for &a in args {
            reverse_args.push(cx.alpha(a)?);
            if func.ty(a).is_ptr() {
                let shadow = if cx.plan().activity.has_shadow(a) { cx.shadow(a)? } else { cx.constant(Constant::Null(0)) };
                reverse_args.push(shadow);
            }
        }
        if sig.ret.is_float() {
            let zero = Constant::Zero(sig.ret.clone());
            let d = match cx.d {
                Some(d) => d,
                None => cx.constant(zero),
            };
            reverse_args.push(d);
        }
        if rule.has_tape() {
            reverse_args.push(cx.callee_tape()?);
        }
        let (reverse, reverse_sig) = rule.reverse();
        let Some(grads) = cx.cursor().call(reverse, reverse_sig.clone(), reverse_args) else { return Ok(()) };
        let floats: Vec<Value> = args.iter().copied().filter(|a| func.ty(*a).is_float()).collect();
        match &reverse_sig.ret {
            Type::Struct(fields) => {
                for (k, a) in floats.iter().enumerate().take(fields.len()) {
                    let g = cx.cursor().extract(grads, k as u32);
                    cx.accumulate(*a, g);
                }
            }
            _ => {
                if let Some(a) = floats.first() {
                    cx.accumulate(*a, grads);
                }
            }
        }
        Ok(())
    }

    fn tangent(&self, cx: &mut Tangent, pullback: &Pullback) -> Result<(), TransformError> {
        match pullback {
            Pullback::Custom(rule) if rule.is_tangent() => tangent(cx, rule),
            _ => Err(TransformError::at(cx.func(), cx.inst, "internal error: a reverse-mode registration in forward mode")),
        }
    }
}

/// Forward mode: the registered tangent function, given each argument followed (floats
/// and pointers) by its tangent or shadow. When it returns `{result, tangent}` it replaces
/// the call; otherwise the call stays and computes the result.
pub fn tangent(cx: &mut Tangent, rule: &CustomRule) -> Result<(), TransformError> {
    let func = cx.func();
    let InstKind::Call { args, sig, .. } = cx.kind() else { return Ok(()) };
    let mut tangent_args = Vec::new();
    for &a in args {
        tangent_args.push(a);
        if func.ty(a).is_ptr() {
            let shadow = match cx.shadow_if_any(a) {
                Some(_) => cx.shadow(a)?.0,
                None => cx.constant(Constant::Null(0)),
            };
            tangent_args.push(shadow);
        } else if func.ty(a).carries_derivative() {
            tangent_args.push(cx.tangent(a));
        }
    }
    let (name, tangent_sig) = rule.reverse();
    if tangent_sig.ret == sig.ret {
        if let Some(t) = cx.cursor().call(name, tangent_sig.clone(), tangent_args) {
            cx.set(t);
        }
        return Ok(());
    }
    // `{result, tangent}`: called where the call was, which becomes the pair's first field.
    let (b, inst) = (cx.plan().block_of[cx.inst], cx.inst);
    let at = crate::primal::position(cx.generated(), b, inst);
    let mut c = Cursor { func: cx.generated(), block: b, at: Some(at) };
    let Some(pair) = c.call(name, tangent_sig.clone(), tangent_args) else { return Ok(()) };
    *cx.copied_kind() = InstKind::ExtractValue { agg: pair, indices: vec![0] };
    let t = cx.cursor().extract(pair, 1);
    cx.set(t);
    Ok(())
}

/// In the primal: calls with a registered Enzyme-style derivative run its augmented
/// forward: just before the call when it returns only the tape (the call still computes
/// the result), or in place of it when it returns `{ tape, result }`. Returns each call's
/// tape.
pub fn forward(plan: &Plan, p: &mut Function, shadows: &HashMap<Value, Value>) -> HashMap<Inst, Value> {
    let mut tapes = HashMap::new();
    for (inst, pullback) in super::chosen(&plan.pullbacks) {
        let Pullback::Custom(rule) = pullback else { continue };
        let CustomKind::Enzyme { augmented, augmented_sig, .. } = &rule.kind else { continue };
        let InstKind::Call { args, .. } = p.insts[inst].kind.clone() else { continue };
        let mut aug_args = Vec::new();
        for a in args {
            aug_args.push(a);
            if p.ty(a).is_ptr() {
                aug_args.push(shadows.get(&a).copied().unwrap_or_else(|| p.constant_value(Constant::Null(0))));
            }
        }
        let b = plan.block_of[inst];
        let at = crate::primal::position(p, b, inst);
        let mut c = Cursor { func: p, block: b, at: Some(at) };
        let out = c.call(augmented, augmented_sig.clone(), aug_args);
        match (&augmented_sig.ret, out) {
            (Type::Struct(_), Some(pair)) => {
                let tape = c.extract(pair, 0);
                tapes.insert(inst, tape);
                // The call's own result now comes from the augmented forward.
                p.insts[inst].kind = InstKind::ExtractValue { agg: pair, indices: vec![1] };
            }
            (Type::Ptr(_), Some(tape)) => {
                tapes.insert(inst, tape);
            }
            _ => {}
        }
    }
    tapes
}
