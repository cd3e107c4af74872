//! Shadows that may be null at run time, and the guards that keep the primal and the
//! adjoint from dereferencing them.
//!
//! A null shadow stands for memory zyg does not differentiate (README, "What zyg assumes").
//! It arises when a pointer to such memory (a constant table, memory a `const` argument
//! reaches) is kept in differentiated memory: the primal stores a null shadow beside it, so
//! a later load of the pointer finds a null shadow; when a callee returns a pointer to
//! other memory (its returned shadow is null); where a phi or select merges a pointer with
//! null; and in a callee given such a shadow (its `Spec` says its shadow parameters may be
//! null). Loads through such a pointer read constants, whose adjoint goes nowhere.
//!
//! The invariant kept: a shadow is null or valid. A shadow computed from a nullable one (a
//! `getelementptr` of it) is made null again where its base is (`select`), and every access
//! through a nullable shadow is guarded: an adjoint added into it goes to a scratch slot
//! instead, an adjoint taken from it is zero, a shadow pointer loaded from it is null.

use crate::activity::Activity;
use crate::builder::Cursor;
use crate::ArgActivity;
use cranelift_entity::EntitySet;
use zyg_ir::{CastOp, Constant, Function, Inst, InstKind, IntPred, Signature, Type, Value};

/// The pointers of `func` whose shadows may be null.
pub fn nullable(func: &Function, activity: &Activity, args: &[ArgActivity], params_may_be_null: bool) -> EntitySet<Value> {
    let mut out: EntitySet<Value> = EntitySet::new();
    if params_may_be_null {
        out.extend(func.params.iter().zip(args).filter(|(_, a)| **a == ArgActivity::Dup).map(|(p, _)| *p));
    }
    let is_null_constant =
        |v: &Value| matches!(func.constant(*v), Some(Constant::Null(_) | Constant::Poison(_) | Constant::Undef(_)));
    let mut changed = true;
    while changed {
        changed = false;
        for (_, inst) in func.inst_order() {
            // Scalar pointers only: vectors of them (a gather's lanes) keep their shadows.
            let Some(v) = func.result(inst).filter(|v| func.ty(*v).is_ptr() && activity.has_shadow(*v) && !out.contains(*v))
            else {
                continue;
            };
            let nullable = match &func.insts[inst].kind {
                // A pointer read from memory, or taken out of a struct value (whose shadow was
                // read from memory, or built from shadows that may be null).
                InstKind::Load { .. } | InstKind::ExtractValue { .. } => true,
                InstKind::Unary { arg, .. } => out.contains(*arg),
                InstKind::Call { callee: zyg_ir::Callee::Direct(name), args, .. } => {
                    // A tape stack's record (`rules::stacks`) is never null; its header's shadow
                    // is not nullable either (refused there).
                    if crate::addresses::is_address_intrinsic(name) || crate::stack::op_of(name).is_some() {
                        args.first().is_some_and(|p| out.contains(*p))
                    } else {
                        !crate::activity::is_allocation(&func.insts[inst].kind)
                    }
                }
                InstKind::Call { .. } => true,
                InstKind::Phi { incoming } => incoming.iter().any(|(_, x)| out.contains(*x) || is_null_constant(x)),
                InstKind::Select { then_value, else_value, .. } => {
                    [then_value, else_value].into_iter().any(|x| out.contains(*x) || is_null_constant(x))
                }
                InstKind::Gep { base, .. } => out.contains(*base),
                InstKind::Cast { op: CastOp::IntToPtr, arg } => activity.address_root(*arg).is_some_and(|r| out.contains(r)),
                InstKind::Cast { arg, .. } => out.contains(*arg),
                _ => false,
            };
            if nullable {
                out.insert(v);
                changed = true;
            }
        }
    }
    out
}

/// `derived` where `base` is not null, null where it is: a shadow computed from a nullable
/// shadow stays null (so that guards can test it) rather than becoming null plus an offset.
pub fn keep_null(c: &mut Cursor, base: Value, derived: Value) -> Value {
    let is_null = is_null(c, base);
    let null = c.constant(Constant::Null(pointer_space(c, derived)));
    c.select(is_null, null, derived)
}

/// `shadow == null`.
pub fn is_null(c: &mut Cursor, shadow: Value) -> Value {
    let null = c.constant(Constant::Null(pointer_space(c, shadow)));
    c.icmp(IntPred::Eq, shadow, null)
}

/// Where an access through `shadow` goes: `shadow`, or `scratch` where it is null.
pub fn or_scratch(c: &mut Cursor, shadow: Value, scratch: Value) -> Value {
    let is_null = is_null(c, shadow);
    let scratch = match (c.func.ty(shadow).clone(), c.func.ty(scratch).clone()) {
        (Type::Ptr(a), Type::Ptr(b)) if a != b => c.cast(CastOp::AddrSpaceCast, scratch, Type::Ptr(a)),
        _ => scratch,
    };
    c.select(is_null, scratch, shadow)
}

fn pointer_space(c: &Cursor, v: Value) -> u32 {
    match c.func.ty(v) {
        Type::Ptr(space) => *space,
        _ => 0,
    }
}

/// The bytes a scratch slot needs for the loads and stores of `func`: the largest access (at
/// least a 64-byte vector).
pub fn scratch_type(func: &Function) -> Type {
    let types = func.inst_order().filter_map(|(_, i)| match &func.insts[i].kind {
        InstKind::Load { ty, .. } => Some(ty),
        InstKind::Store { value, .. } => Some(func.ty(*value)),
        _ => None,
    });
    let bytes = types.filter_map(|t| t.natural_layout().map(|(s, _)| s)).max().unwrap_or(0).max(64);
    Type::Array(bytes.div_ceil(16), std::sync::Arc::new(Type::Vector(2, std::sync::Arc::new(Type::F64))))
}

/// The accesses that would put a derivative where a null shadow loses it: an active float
/// stored, a pointer to differentiated memory stored, or differentiated memory copied,
/// through a pointer whose shadow may be null. Memory with a null shadow stands for
/// constants (a `const` argument's, a pointer field of a shadow nobody set); what is stored
/// there would be read back without its derivative. The primal checks these at run time
/// and stops the program with a message (`abort_helper`): that is the user's mistake
/// (memory passed as `const`, or a shadow's pointer field not set), and it cannot be
/// decided before the program runs.
pub fn lossy_stores(func: &Function, activity: &Activity, nullable: &EntitySet<Value>) -> Vec<Inst> {
    let mut out = Vec::new();
    for (_, inst) in func.inst_order() {
        let lossy = match &func.insts[inst].kind {
            InstKind::AtomicFAdd { value, ptr, .. } if nullable.contains(*ptr) => activity.is_active(*value),
            InstKind::Store { value, ptr } if nullable.contains(*ptr) => {
                let ty = func.ty(*value);
                (activity.is_active(*value) && ty.carries_derivative()) || (ty.holds_pointers() && activity.has_shadow(*value))
            }
            kind => match crate::memory::mem_op(kind) {
                Some((_, dst, src, _)) if nullable.contains(dst) => activity.has_shadow(src) && !nullable.contains(src),
                _ => false,
            },
        };
        if lossy {
            out.push(inst);
        }
    }
    out
}

/// What the program prints before it stops at a store `lossy_stores` found.
pub fn lossy_store_message(func: &Function, inst: Inst) -> String {
    let at = func.insts[inst].loc.as_ref().map(|l| format!(" at {l}")).unwrap_or_default();
    format!(
        "zyg: runtime error: in function `{}`{at}: a value with a derivative is written to memory zyg does not \
         differentiate (its pointer's shadow is null: memory reached from a `const` argument, or a pointer field \
         of a shadow that was not set); the derivative would be lost. Pass that memory with `enzyme_dup` and a \
         shadow buffer, or set the pointer in the shadow.\n",
        func.name
    )
}

/// `void NAME(i1 missing)`: prints `message` and aborts where `missing` (on a GPU, traps).
pub fn abort_helper(name: String, message: &str, gpu: bool) -> Function {
    let mut f = Function::new(name, Signature::new(vec![Type::I1], Type::Void));
    f.linkage = zyg_ir::Linkage::Internal;
    let missing = f.params[0];
    let entry = f.create_block(Some("entry".into()));
    let fail = f.create_block(Some("missing".into()));
    let ok = f.create_block(Some("ok".into()));
    let mut c = Cursor::at_end(&mut f, entry);
    c.cond_br(missing, fail, ok);
    c.switch_to(ok);
    c.ret(None);
    c.switch_to(fail);
    stop_with_message(&mut c, message, &[], gpu);
    f
}

/// Stops the program at `c`: on the CPU, `message` goes to standard error first (as it is,
/// or as a `printf` format filled in with `args`), then `abort`; on a GPU, a trap.
pub(crate) fn stop_with_message(c: &mut Cursor, message: &str, args: &[Value], gpu: bool) {
    if !gpu {
        // A format is read up to its NUL; plain text is written by its length.
        let nul = (!args.is_empty()).then_some(0);
        let bytes: Vec<Constant> = message.bytes().chain(nul).map(|b| Constant::int(8, i128::from(b))).collect();
        let n = bytes.len();
        let text = c.constant(Constant::Vector(bytes));
        let buffer = c.alloca(Type::Vector(n as u32, std::sync::Arc::new(Type::I8)));
        c.store(text, buffer);
        let fd = c.i32(2);
        if args.is_empty() {
            let len = c.i64(n as i64);
            c.call("write", Signature::new(vec![Type::I32, Type::PTR, Type::I64], Type::I64), vec![fd, buffer, len]);
        } else {
            let dprintf = Signature { params: vec![Type::I32, Type::PTR], ret: Type::I32, variadic: true };
            c.call("dprintf", dprintf, [fd, buffer].into_iter().chain(args.iter().copied()).collect());
        }
        c.call("abort", Signature::new(vec![], Type::Void), vec![]);
    }
    c.trap();
}
