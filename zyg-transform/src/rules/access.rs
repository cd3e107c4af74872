//! The memory-access family: `load`, `store` and atomic float additions (`AtomicFAdd`) of
//! differentiated memory. A load's
//! adjoint is added into the shadow it read from (atomically where other GPU threads may
//! add there too); a store overwrote its memory, so the adjoint there goes to the stored
//! value and the shadow is cleared. Accesses through a shadow that may be null go to a
//! scratch slot where it is (`shadows`).

use super::{Choice, Classify, Pullback, RuleFamily};
use crate::adjoint::Reverse;
use crate::alphas::Alphas;
use crate::builder::Cleared;
use crate::error::TransformError;
use crate::tangent::Tangent;
use std::collections::HashMap;
use zyg_ir::{Constant, Function, Inst, InstKind, Type, Value};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// `shadow(ptr) += adjoint`.
    Load,
    /// `adjoint(value) += shadow(ptr)`: an atomic addition (`AtomicFAdd`, OpenMP's `atomic`
    /// and reductions) leaves the memory's adjoint where it is, since the memory's old value
    /// reaches the new one with a derivative of 1.
    AtomicAdd,
    /// `adjoint(value) += shadow(ptr); shadow(ptr) = 0`.
    Store,
}

pub struct Accesses;

impl RuleFamily for Accesses {
    fn name(&self) -> &'static str {
        "memory accesses"
    }

    fn classify(&self, cx: &Classify, inst: Inst) -> Result<Option<Choice>, TransformError> {
        Ok(match cx.func.insts[inst].kind {
            InstKind::Load { .. } => Some(Choice::Pullback(Pullback::Access(Access::Load))),
            InstKind::Store { .. } => Some(Choice::Pullback(Pullback::Access(Access::Store))),
            InstKind::AtomicFAdd { .. } => {
                if cx.func.result(inst).is_some_and(|v| cx.activity.is_active(v)) {
                    // The old value depends on which thread came first: its derivative too.
                    return Err(TransformError::at(
                        cx.func,
                        inst,
                        "an atomic addition whose old value is used (`#pragma omp atomic capture`, \
                         `__atomic_fetch_add`'s result) is not supported yet; add atomically without reading the \
                         old value, or read the memory after the threads joined",
                    ));
                }
                Some(Choice::Pullback(Pullback::Access(Access::AtomicAdd)))
            }
            _ => None,
        })
    }

    /// The shadow of the pointer accessed.
    fn alphas(&self, needs: &mut Alphas, inst: Inst, _pullback: &Pullback) {
        if let InstKind::Load { ptr, .. } | InstKind::Store { ptr, .. } | InstKind::AtomicFAdd { ptr, .. } =
            needs.func.insts[inst].kind
        {
            needs.shadow(ptr);
        }
    }

    fn reverse(&self, cx: &mut Reverse, _pullback: &Pullback) -> Result<(), TransformError> {
        match *cx.kind() {
            InstKind::Load { ptr, .. } => load(cx, ptr),
            InstKind::Store { value, ptr } => store(cx, value, ptr),
            InstKind::AtomicFAdd { value, ptr, .. } => atomic_add(cx, value, ptr),
            _ => Ok(()),
        }
    }

    /// A load's tangent is read from the shadow; a store writes the value's tangent there
    /// (a pointer's shadow is stored by the primal's steps, an integer overwrites with zero;
    /// of a struct value holding pointers, only the fields without pointers: the primal's
    /// steps store the rest of its shadow).
    fn tangent(&self, cx: &mut Tangent, _pullback: &Pullback) -> Result<(), TransformError> {
        match *cx.kind() {
            InstKind::Load { ptr, ref ty } => {
                if cx.result.is_none() || !ty.carries_derivative() {
                    return Ok(());
                }
                let ty = ty.clone();
                let (shadow, missing) = cx.shadow(ptr)?;
                let mut c = cx.cursor();
                let mut t = c.load(ty.clone(), shadow);
                if let Some(missing) = missing {
                    let zero = c.constant(Constant::Zero(ty));
                    t = c.select(missing, zero, t);
                }
                cx.set(t);
                Ok(())
            }
            // Each thread adds its tangent where it added its value.
            InstKind::AtomicFAdd { value, ptr, .. } => {
                let ty = cx.func().ty(value).clone();
                let t = cx.tangent(value);
                let (shadow, _) = cx.shadow(ptr)?;
                cx.cursor().atomic_add_into(shadow, &ty, t);
                Ok(())
            }
            InstKind::Store { value, ptr } => {
                let ty = cx.func().ty(value).clone();
                if ty.holds_only_addresses() {
                    return Ok(());
                }
                let t = if ty.carries_derivative() {
                    cx.tangent(value)
                } else {
                    match copied_integer(cx, value, &ty)? {
                        Some(shadow_int) => shadow_int,
                        None => cx.constant(Constant::Zero(ty.clone())),
                    }
                };
                let (shadow, _) = cx.shadow(ptr)?;
                cx.cursor().store_parts(&ty, t, shadow, &|part| !part.holds_pointers());
                Ok(())
            }
            _ => Ok(()),
        }
    }
}

/// Forward mode: an integer copied from differentiated memory to differentiated memory
/// takes the source's shadow integer along. Shadow integers mean nothing to the user's
/// memory, but a generated gradient's tape holds stack headers (`rules::stacks`) whose
/// shadows are stacks too: a copy of a callee's tape must copy the shadow header's counts,
/// or the shadow stack is read at the wrong place. Read where the value is stored, or
/// beside it where it was given a shadow (taken out of a struct value's shadow,
/// `primal::shadow_instructions`).
fn copied_integer(cx: &mut Tangent, value: zyg_ir::Value, ty: &Type) -> Result<Option<zyg_ir::Value>, TransformError> {
    if let Some(shadow) = cx.shadow_if_any(value) {
        return Ok(Some(shadow));
    }
    if !ty.is_int() {
        return Ok(None);
    }
    let Some(InstKind::Load { ptr: src, .. }) = cx.func().def_inst(value).map(|i| &cx.func().insts[i].kind) else {
        return Ok(None);
    };
    let src = *src;
    if cx.shadow_if_any(src).is_none() {
        return Ok(None);
    }
    let (shadow, missing) = cx.shadow(src)?;
    let mut c = cx.cursor();
    let mut copied = c.load(ty.clone(), shadow);
    if let Some(missing) = missing {
        let zero = c.constant(Constant::Zero(ty.clone()));
        copied = c.select(missing, zero, copied);
    }
    Ok(Some(copied))
}

fn load(cx: &mut Reverse, ptr: zyg_ir::Value) -> Result<(), TransformError> {
    let (Some(v), Some(d)) = (cx.result, cx.d) else { return Ok(()) };
    let ty = cx.func().ty(v).clone();
    let shadow = cx.shadow(ptr)?;
    let (shadow, _) = cx.guarded(ptr, shadow);
    let shared = cx.plan().thread_private.as_ref().is_some_and(|private| !private.contains(ptr));
    if let (Some(owned), Type::Float(_)) = (cx.plan().owned.get(&ptr).cloned(), &ty) {
        // Plain inside the thread's chunk, atomic at its edges (`rules::openmp::owned_loads`).
        let (iv, lb, ub) = (cx.alpha(owned.iv)?, cx.alpha(owned.lb)?, cx.alpha(owned.ub)?);
        let namespace = cx.plan().namespace.clone();
        let mut c = cx.cursor();
        let wide = |c: &mut crate::builder::Cursor, v: Value, plus: i64| {
            let v = if *c.func.ty(v) == Type::I64 { v } else { c.cast(zyg_ir::CastOp::SExt, v, Type::I64) };
            let k = c.i64(plus);
            c.binary(zyg_ir::BinOp::Add, v, k)
        };
        let j = wide(&mut c, iv, owned.offset);
        let lo = wide(&mut c, lb, owned.max);
        let hi = wide(&mut c, ub, owned.min);
        let sig = zyg_ir::Signature::new(vec![Type::PTR, ty.clone(), Type::I64, Type::I64, Type::I64], Type::Void);
        c.call(&crate::rules::openmp::add_owned_name(&namespace, &ty), sig, vec![shadow, d, j, lo, hi]);
        return Ok(());
    }
    let mut c = cx.cursor();
    if shared {
        c.atomic_add_into(shadow, &ty, d);
    } else {
        c.add_into(shadow, &ty, d);
    }
    Ok(())
}

/// The adjoint of `atomicrmw fadd ptr, value`: the value gets the memory's adjoint, read
/// (not taken: other threads' additions into the same place read it too).
fn atomic_add(cx: &mut Reverse, value: zyg_ir::Value, ptr: zyg_ir::Value) -> Result<(), TransformError> {
    let ty = cx.func().ty(value).clone();
    let shadow = cx.shadow(ptr)?;
    let (shadow, missing) = cx.guarded(ptr, shadow);
    let mut c = cx.cursor();
    let mut d = c.load(ty.clone(), shadow);
    if let Some(missing) = missing {
        let zero = c.constant(Constant::Zero(ty));
        d = c.select(missing, zero, d);
    }
    cx.accumulate(value, d);
    Ok(())
}

fn store(cx: &mut Reverse, value: zyg_ir::Value, ptr: zyg_ir::Value) -> Result<(), TransformError> {
    let ty = cx.func().ty(value).clone();
    if ty.holds_only_addresses() {
        // A pointer's shadow slot holds the shadow pointer, not an adjoint.
        return Ok(());
    }
    // The store overwrote the memory: its adjoint so far goes to the stored value, and
    // what was there before gets none of it.
    let shadow = cx.shadow(ptr)?;
    let (shadow, missing) = cx.guarded(ptr, shadow);
    let cleared = if local_memory(cx.func(), &cx.plan().layout.shadow_memory, ptr) { Cleared::Private } else { Cleared::Visible };
    let mut c = cx.cursor();
    if !ty.carries_derivative() {
        // An integer overwrote whatever floats were there.
        let zero = c.constant(Constant::Zero(ty));
        c.store(zero, shadow);
        return Ok(());
    }
    let mut d = c.take_from(shadow, &ty, cleared);
    if let Some(missing) = missing {
        // Memory that is not differentiated holds no adjoint.
        let zero = c.constant(Constant::Zero(ty));
        d = c.select(missing, zero, d);
    }
    cx.accumulate(value, d);
    Ok(())
}

/// True when `ptr` points into a local whose shadow is tape memory (`shadow_memory`: an
/// alloca, reached through address arithmetic), which only zyg's code reads.
fn local_memory(func: &Function, shadow_memory: &HashMap<Value, Vec<u32>>, ptr: Value) -> bool {
    shadow_memory.contains_key(&crate::memory::root(func, ptr))
}
