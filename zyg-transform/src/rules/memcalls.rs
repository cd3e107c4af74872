//! The memory-call family: allocations (`malloc` and friends, custom allocators), `realloc`,
//! `memset` and `memcpy`/`memmove`. An allocation's memory gets a zeroed shadow in the
//! primal (`shadow_allocation`), which the adjoint frees going back past it. `realloc`'s
//! new shadow gives its adjoint back to the old one. `memset` overwrites: its adjoint
//! zeroes the shadow. A copy moves the destination's adjoint back to the source through
//! the float bytes, and the primal copies the shadows of the pointer bytes
//! (`copy_pointer_shadows`). The helpers the generated code calls are in `crate::memory`.

use super::{Choice, Classify, Pullback, RuleFamily};
use crate::adjoint::Reverse;
use crate::alphas::Alphas;
use crate::builder::Cursor;
use crate::error::TransformError;
use crate::memory::{self, CopyPlan, MemOp};
use crate::tangent::Tangent;
use crate::Plan;
use std::collections::HashMap;
use zyg_ir::{BinOp, Callee, CastOp, Constant, FloatTy, Function, Inst, InstKind, Signature, Type, Value};

#[derive(Clone, Debug)]
pub enum MemCall {
    /// `malloc` and friends: the adjoint frees the shadow allocated beside the memory.
    Allocation,
    /// `aligned_alloc` and friends (`memory::aligned_allocation`): as `Allocation`, with a
    /// shadow as aligned (`memory::shadow_aligned`).
    AlignedAllocation,
    /// `realloc` of memory holding this float type: the new shadow's adjoint goes back to
    /// the old shadow, and the new shadow is freed (`memory::is_realloc`).
    Realloc(FloatTy),
    /// `memset`: the shadow of the bytes set is zeroed.
    Set,
    /// `memcpy`/`memmove`: the destination's adjoint goes back to the source through the
    /// float bytes (when the source is differentiated memory) and is zeroed; the primal
    /// copies the shadows of pointer bytes (`memory::CopyPlan`).
    Copy(CopyPlan),
}

pub struct MemCalls;

impl RuleFamily for MemCalls {
    fn name(&self) -> &'static str {
        "memory calls"
    }

    fn classify(&self, cx: &Classify, inst: Inst) -> Result<Option<Choice>, TransformError> {
        let (func, activity) = (cx.func, cx.activity);
        let kind = &func.insts[inst].kind;
        let call = if memory::is_realloc(kind) {
            MemCall::Realloc(memory::element_type(func, inst, &|v| activity.has_shadow(v))?)
        } else if let Some((alignment, size)) = memory::aligned_allocation(kind) {
            // The shadow helper takes 64-bit sizes (`size_t` on every target zyg writes for).
            let InstKind::Call { args, .. } = kind else { unreachable!("an allocation is a call") };
            let sized = |i: usize| args.get(i).is_some_and(|a| *func.ty(*a) == Type::I64);
            if !sized(size) || matches!(alignment, memory::Alignment::Arg(i) if !sized(i)) {
                return Err(TransformError::at(
                    func,
                    inst,
                    "this aligned allocation's size and alignment are not 64-bit integers; zyg shadows aligned \
                     allocations only where `size_t` has 64 bits",
                ));
            }
            MemCall::AlignedAllocation
        } else if cx.conventions.is_allocation(kind) {
            MemCall::Allocation
        } else if let Some((op, dst, src, _)) = memory::mem_op(kind) {
            if !activity.has_shadow(dst) {
                return Err(TransformError::at(
                    func,
                    inst,
                    "differentiated memory is copied into memory zyg cannot trace; that is not supported yet",
                ));
            }
            match op {
                MemOp::Set => MemCall::Set,
                MemOp::Copy if activity.has_shadow(src) => MemCall::Copy(memory::copy_plan(cx.memory, func, inst)?),
                // A copy of constant memory only overwrites: its adjoint is a memset; the
                // pointers it copies point to memory that is not differentiated, so their
                // shadows (in the primal) are null.
                MemOp::Copy => match memory::copy_plan(cx.memory, func, inst) {
                    Ok(plan) if plan.copies_shadows() => MemCall::Copy(plan),
                    _ => MemCall::Set,
                },
            }
        } else {
            return Ok(None);
        };
        Ok(Some(Choice::Pullback(Pullback::Memory(call))))
    }

    fn alphas(&self, needs: &mut Alphas, inst: Inst, pullback: &Pullback) {
        let Pullback::Memory(call) = pullback else { return };
        let func = needs.func;
        match (call, &func.insts[inst].kind) {
            (MemCall::Allocation | MemCall::AlignedAllocation, _) => {
                needs.shadow(func.result(inst).expect("an allocation returns its memory"))
            }
            (MemCall::Realloc(_), InstKind::Call { args, .. }) => {
                let memory = func.result(inst).expect("realloc returns its memory");
                needs.shadow_if_any(args[0]);
                needs.shadow_if_any(memory);
                needs.value(args[1]);
            }
            (MemCall::Set | MemCall::Copy(_), kind) => {
                let (_, dst, src, bytes) = memory::mem_op(kind).expect("a memory call");
                needs.shadow_if_any(dst);
                needs.shadow_if_any(src);
                needs.value(bytes);
            }
            _ => {}
        }
    }

    fn reverse(&self, cx: &mut Reverse, pullback: &Pullback) -> Result<(), TransformError> {
        let Pullback::Memory(call) = pullback else { return Ok(()) };
        let func = cx.func();
        match call {
            MemCall::Allocation | MemCall::AlignedAllocation => {
                // Going back past the allocation: its shadow is no longer needed.
                let memory = func.result(cx.inst).expect("an allocation returns its memory");
                let shadow = cx.shadow(memory)?;
                cx.cursor().free(shadow);
            }
            MemCall::Realloc(elem) => {
                let InstKind::Call { args, .. } = cx.kind() else { return Ok(()) };
                let (old, bytes) = (args[0], args[1]);
                let memory = func.result(cx.inst).expect("realloc returns its memory");
                let old_shadow = match func.constant(old) {
                    Some(Constant::Null(_)) => cx.constant(Constant::Null(0)),
                    _ => cx.shadow(old)?,
                };
                let new_shadow = cx.shadow(memory)?;
                let bytes = cx.alpha(bytes)?;
                let name = memory::realloc_adjoint_name(&cx.plan().namespace, *elem);
                cx.cursor().call(&name, memory::realloc_adjoint_signature(), vec![old_shadow, new_shadow, bytes]);
            }
            MemCall::Set | MemCall::Copy(_) => set_or_copy(cx, call)?,
        }
        Ok(())
    }

    /// An allocation's shadow is made beside it by the primal's steps, and freed with it
    /// (`tangent::free_shadows`); a `memset` zeroes the shadow's bytes, a copy copies the
    /// source's shadow bytes (tangents and pointer shadows alike) or zeroes them where the
    /// source is not differentiated.
    fn tangent(&self, cx: &mut Tangent, pullback: &Pullback) -> Result<(), TransformError> {
        let Pullback::Memory(call) = pullback else { return Ok(()) };
        let kind = cx.kind();
        match call {
            MemCall::Allocation | MemCall::AlignedAllocation => Ok(()),
            // The new shadow is made beside it (`shadow_allocation`), the old one freed there.
            MemCall::Realloc(_) => Ok(()),
            MemCall::Set | MemCall::Copy(_) => {
                let Some((op, dst, src, len)) = memory::mem_op(kind) else { return Ok(()) };
                if cx.plan().nullable.contains(dst) {
                    return Err(TransformError::at(
                        cx.func(),
                        cx.inst,
                        "forward mode does not handle a memory call into memory whose shadow may be null yet; use reverse mode",
                    ));
                }
                let (dst_shadow, _) = cx.shadow(dst)?;
                let src_shadow = if op == MemOp::Copy { cx.shadow_if_any(src) } else { None };
                let mut shadow_kind = kind.clone().without_unwind();
                match (src_shadow, &mut shadow_kind) {
                    (Some(src_shadow), InstKind::Call { args, .. }) => {
                        args[0] = dst_shadow;
                        args[1] = src_shadow;
                    }
                    (None, InstKind::Call { args, .. }) if op == MemOp::Set => {
                        args[0] = dst_shadow;
                        let zero = Constant::Zero(cx.func().ty(args[1]).clone());
                        args[1] = cx.constant(zero);
                    }
                    _ => {
                        let (space, bits) = match (cx.func().ty(dst), cx.func().ty(len)) {
                            (Type::Ptr(space), Type::Int(bits)) => (*space, *bits),
                            _ => return Err(TransformError::at(cx.func(), cx.inst, "internal error: a memory call's operands")),
                        };
                        let sig = Signature::new(vec![Type::Ptr(space), Type::Int(8), Type::Int(bits), Type::Int(1)], Type::Void);
                        let (zero, no) = (cx.constant(Constant::int(8, 0)), cx.constant(Constant::int(1, 0)));
                        let name = format!("llvm.memset.p{space}.i{bits}");
                        shadow_kind = InstKind::Call {
                            callee: Callee::Direct(name.as_str().into()),
                            sig,
                            args: vec![dst_shadow, zero, len, no],
                            unwind: None,
                        };
                    }
                }
                let ty = match &shadow_kind {
                    InstKind::Call { sig, .. } => sig.ret.clone(),
                    _ => Type::Void,
                };
                cx.cursor().emit(shadow_kind, ty);
                Ok(())
            }
        }
    }
}

/// The adjoint of a `memset` or a copy: the destination's adjoint goes back to the source
/// (a copy of differentiated memory) or nowhere, and is cleared.
fn set_or_copy(cx: &mut Reverse, call: &MemCall) -> Result<(), TransformError> {
    let (plan, inst) = (cx.plan(), cx.inst);
    let (_, dst, src, bytes) = memory::mem_op(cx.kind()).expect("a memory call");
    let bytes = cx.alpha(bytes)?;
    let dst_shadow = cx.shadow(dst)?;
    let src_shadow = match call {
        MemCall::Copy(_) if plan.activity.has_shadow(src) => Some(cx.shadow(src)?),
        _ => None,
    };
    let mut c = cx.cursor();
    let mut bytes = c.zext_to_i64(bytes);
    // A null shadow (memory that is not differentiated): at the destination, nothing to
    // move or clear; at the source, the copy only overwrote, so the destination's adjoint
    // is cleared and goes nowhere.
    let none = c.i64(0);
    let dst_null = plan.nullable.contains(dst).then(|| crate::shadows::is_null(&mut c, dst_shadow));
    let src_null = src_shadow.filter(|_| plan.nullable.contains(src)).map(|s| crate::shadows::is_null(&mut c, s));
    if let Some(src_null) = src_null {
        let clear = match dst_null {
            Some(dst_null) => {
                let dst_there = c.not(dst_null);
                c.binary(BinOp::And, src_null, dst_there)
            }
            None => src_null,
        };
        let cleared = c.select(clear, bytes, none);
        let target = generic_pointer(&mut c, dst_shadow);
        zero_bytes(&mut c, target, cleared);
    }
    if let Some(missing) = dst_null.into_iter().chain(src_null).reduce(|a, b| c.binary(BinOp::Or, a, b)) {
        bytes = c.select(missing, none, bytes);
    }
    // The helpers take generic pointers; a shared-memory shadow converts to one.
    let dst_shadow = generic_pointer(&mut c, dst_shadow);
    let src_shadow = src_shadow.map(|s| generic_pointer(&mut c, s));
    match (call, src_shadow) {
        (MemCall::Copy(CopyPlan::Floats(elem)), Some(src_shadow)) => {
            let name = memory::copy_adjoint_name(&plan.namespace, *elem);
            c.call(&name, memory::copy_adjoint_signature(), vec![dst_shadow, src_shadow, bytes]);
        }
        // Mixed fields: only the float fields' adjoints move (and are zeroed).
        (MemCall::Copy(CopyPlan::Fields(_)), Some(src_shadow)) => {
            let name = memory::field_adjoint_name(&plan.namespace, plan.copy_layouts[&inst]);
            c.call(&name, memory::copy_adjoint_signature(), vec![dst_shadow, src_shadow, bytes]);
        }
        // Overwritten by a memset or by a copy of constant memory: no adjoint flows past it.
        _ => zero_bytes(&mut c, dst_shadow, bytes),
    }
    Ok(())
}

/// `llvm.memset(ptr, 0, bytes)`.
pub(crate) fn zero_bytes(c: &mut Cursor, ptr: Value, bytes: Value) {
    let zero = c.constant(Constant::int(8, 0));
    let volatile = c.constant(Constant::bool(false));
    let sig = Signature::new(vec![Type::PTR, Type::I8, Type::I64, Type::I1], Type::Void);
    c.call("llvm.memset.p0.i64", sig, vec![ptr, zero, bytes, volatile]);
}

/// `ptr` as a pointer in the default address space (an `addrspacecast` from another one).
fn generic_pointer(c: &mut Cursor, ptr: Value) -> Value {
    match c.func.ty(ptr) {
        Type::Ptr(0) => ptr,
        _ => c.cast(CastOp::AddrSpaceCast, ptr, Type::PTR),
    }
}

/// In the primal: the shadow of heap memory: zeroed memory of the same size, from `calloc`
/// (freed by the adjoint; C++'s `new` never returns null, and neither may its shadow:
/// calloc's failure is left to the program's own checks), or as aligned as the memory
/// (`memory::shadow_aligned`) for an aligned allocation; for `realloc`, the shadow
/// realloc, whose first argument the primal then points at the old shadow.
pub fn shadow_allocation(plan: &Plan, p: &mut Function, kind: &InstKind, args: &[Value]) -> InstKind {
    if let Some(allocator) = plan.conventions.allocator(kind) {
        return shadow_of_custom_allocation(p, args[allocator.size_arg]);
    }
    if let Some((alignment, size)) = memory::aligned_allocation(kind) {
        let align = match alignment {
            memory::Alignment::Arg(i) => args[i],
            memory::Alignment::Fixed(bytes) => p.constant_value(Constant::int(64, i128::from(bytes))),
        };
        let callee = Callee::Direct(memory::shadow_aligned_name(&plan.namespace).into());
        return InstKind::Call { callee, sig: memory::shadow_aligned_signature(), args: vec![align, args[size]], unwind: None };
    }
    let InstKind::Call { callee: Callee::Direct(name), .. } = kind else { return kind.clone() };
    let size_ty = p.ty(args[0]).clone();
    if &**name == "realloc" {
        // The old shadow replaces the old pointer once every shadow exists. Reverse mode's
        // adjoint still reads the old shadow; forward mode's is freed.
        let args = vec![args[0], args[1]];
        let helper = if plan.forward {
            memory::shadow_realloc_moving_name(&plan.namespace)
        } else {
            memory::shadow_realloc_name(&plan.namespace)
        };
        let callee = Callee::Direct(helper.into());
        return InstKind::Call { callee, sig: memory::shadow_realloc_signature(), args, unwind: None };
    }
    let (count, size) = if &**name == "calloc" {
        (args[0], args[1])
    } else {
        let Type::Int(bits) = size_ty else { return kind.clone() };
        (p.constant_value(Constant::int(bits, 1)), args[0])
    };
    let sig = Signature::new(vec![size_ty.clone(), size_ty], Type::PTR);
    InstKind::Call { callee: Callee::Direct("calloc".into()), sig, args: vec![count, size], unwind: None }
}

/// The shadow of a custom allocator's memory (`conventions::Allocator`): zeroed memory of
/// the size it was asked for, from `calloc`, freed by the adjoint.
fn shadow_of_custom_allocation(p: &mut Function, bytes: Value) -> InstKind {
    let size_ty = p.ty(bytes).clone();
    let Type::Int(bits) = size_ty else { unreachable!("the driver checks that the size argument is an integer") };
    let one = p.constant_value(Constant::int(bits, 1));
    let sig = Signature::new(vec![size_ty.clone(), size_ty], Type::PTR);
    InstKind::Call { callee: Callee::Direct("calloc".into()), sig, args: vec![one, bytes], unwind: None }
}

/// In the primal: a copy of memory with pointer fields copies their shadows too
/// (`memory::CopyPlan`): a later load of a pointer from the copy finds its shadow there. A
/// source that is not differentiated gives null shadows.
pub fn copy_pointer_shadows(plan: &Plan, p: &mut Function, shadows: &HashMap<Value, Value>) {
    for (inst, pullback) in super::chosen(&plan.pullbacks) {
        let Pullback::Memory(MemCall::Copy(copy)) = pullback else { continue };
        if !copy.copies_shadows() {
            continue;
        }
        let k = plan.copy_layouts[&inst];
        let Some((_, dst, src, bytes)) = memory::mem_op(&plan.func.insts[inst].kind) else { continue };
        let b = plan.block_of[inst];
        let at = crate::primal::position(p, b, inst) + 1;
        let mut c = Cursor { func: p, block: b, at: Some(at) };
        let mut bytes = c.zext_to_i64(bytes);
        if plan.nullable.contains(dst) {
            let missing = crate::shadows::is_null(&mut c, shadows[&dst]);
            let none = c.i64(0);
            bytes = c.select(missing, none, bytes);
        }
        let dst_shadow = generic_pointer(&mut c, shadows[&dst]);
        let src_shadow = match shadows.get(&src) {
            Some(s) => generic_pointer(&mut c, *s),
            None => c.constant(Constant::Null(0)),
        };
        let name = memory::field_shadows_name(&plan.namespace, k);
        c.call(&name, memory::copy_adjoint_signature(), vec![dst_shadow, src_shadow, bytes]);
    }
}
