//! Adjoints of the memory intrinsics. `memset` overwrites: its adjoint zeroes the shadow.
//! `memcpy`/`memmove` copy values: the destination's adjoint flows back to the source, which
//! needs the element type, so zyg works it out from the function's accesses to
//! differentiated memory (one float format, or an error that says it cannot tell).

use crate::builder::Cursor;
use crate::error::TransformError;
use std::collections::HashSet;
use zyg_ir::{BinOp, Callee, CastOp, Constant, FloatTy, Function, Inst, InstKind, IntPred, Linkage, Signature, Type, Value};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemOp {
    Set,
    Copy,
}

/// The memory operation a call is, and its (destination, source or value, byte count).
pub fn mem_op(kind: &InstKind) -> Option<(MemOp, Value, Value, Value)> {
    let InstKind::Call { callee: Callee::Direct(name), args, .. } = kind else { return None };
    let op = if name.starts_with("llvm.memset.") || &**name == "memset" {
        MemOp::Set
    } else if name.starts_with("llvm.memcpy.") || name.starts_with("llvm.memmove.") || matches!(&**name, "memcpy" | "memmove") {
        MemOp::Copy
    } else {
        return None;
    };
    (args.len() >= 3).then(|| (op, args[0], args[1], args[2]))
}

/// The object a pointer points into: the value its address arithmetic starts from.
pub(crate) fn root(func: &Function, mut p: Value) -> Value {
    while let Some(i) = func.def_inst(p) {
        match &func.insts[i].kind {
            InstKind::Gep { base, .. } | InstKind::Cast { arg: base, .. } => p = *base,
            _ => break,
        }
    }
    p
}

/// The float format of the elements a copy (or realloc) `inst` moves: that of the
/// function's float loads and stores into the same objects, or failing one, of all its
/// accesses to differentiated memory; an error when they disagree.
pub fn element_type(func: &Function, inst: Inst, shadowed: &dyn Fn(Value) -> bool) -> Result<FloatTy, TransformError> {
    let objects: HashSet<Value> = func.insts[inst].kind.operands().into_iter().filter(|v| func.ty(*v).is_ptr()).map(|v| root(func, v)).collect();
    let (mut near, mut seen): (HashSet<FloatTy>, HashSet<FloatTy>) = Default::default();
    for (_, i) in func.inst_order() {
        let (ty, ptr) = match &func.insts[i].kind {
            InstKind::Load { ty, ptr } => (ty.clone(), *ptr),
            InstKind::Store { value, ptr } => (func.ty(*value).clone(), *ptr),
            _ => continue,
        };
        if let (Some(f), true) = (ty.float_elem(), shadowed(ptr)) {
            seen.insert(f);
            if objects.contains(&root(func, ptr)) {
                near.insert(f);
            }
        }
    }
    if near.len() == 1 {
        return Ok(*near.iter().next().expect("one"));
    }
    match seen.len() {
        1 => Ok(*seen.iter().next().expect("one")),
        0 => Ok(FloatTy::F64),
        _ => Err(TransformError::at(
            func,
            inst,
            "cannot tell which bytes of this copy carry derivatives: the function reads differentiated memory \
             as more than one float type",
        )),
    }
}

/// `__<ns>_copy_adjoint_<ty>(dst shadow, src shadow, bytes)`: `src[i] += dst[i]; dst[i] = 0`.
pub fn copy_adjoint_name(namespace: &str, ty: FloatTy) -> String {
    format!("__{namespace}_copy_adjoint_{}", ty.name())
}

pub fn copy_adjoint_signature() -> Signature {
    Signature::new(vec![Type::PTR, Type::PTR, Type::I64], Type::Void)
}

/// The helper named by `copy_adjoint_name`, a loop over the elements.
pub fn copy_adjoint(namespace: &str, ty: FloatTy) -> Function {
    let mut f = Function::new(copy_adjoint_name(namespace, ty), copy_adjoint_signature());
    f.linkage = Linkage::Internal;
    f.attributes = vec!["alwaysinline".into(), "nounwind".into()];
    let (dst, src, bytes) = (f.params[0], f.params[1], f.params[2]);
    let entry = f.create_block(Some("entry".into()));
    let body = f.create_block(Some("loop".into()));
    let exit = f.create_block(Some("exit".into()));
    let elem = Type::Float(ty);
    let mut c = Cursor::at_end(&mut f, entry);
    let size = c.size_of(&elem);
    let count = c.binary(BinOp::UDiv, bytes, size);
    let zero = c.i64(0);
    let empty = c.icmp(IntPred::Eq, count, zero);
    // memmove's ranges may overlap: walk away from the overlap, downwards when the
    // destination lies below the source, so no adjoint is moved twice.
    let (d_addr, s_addr) = (c.cast(CastOp::PtrToInt, dst, Type::I64), c.cast(CastOp::PtrToInt, src, Type::I64));
    let downwards = c.icmp(IntPred::Ult, d_addr, s_addr);
    let one = c.i64(1);
    let last = c.binary(BinOp::Sub, count, one);
    c.cond_br(empty, exit, body);
    c.switch_to(body);
    let j = c.emit(InstKind::Phi { incoming: vec![(entry, zero)] }, Type::I64).expect("phi");
    let back = c.binary(BinOp::Sub, last, j);
    let i = c.select(downwards, back, j);
    let pd = c.emit(InstKind::Gep { source_ty: elem.clone(), base: dst, indices: vec![i], inbounds: true }, Type::PTR).expect("gep");
    let ps = c.emit(InstKind::Gep { source_ty: elem.clone(), base: src, indices: vec![i], inbounds: true }, Type::PTR).expect("gep");
    let d = c.load(elem.clone(), pd);
    let s = c.load(elem.clone(), ps);
    let sum = c.binary(BinOp::FAdd, s, d);
    c.store(sum, ps);
    let fzero = c.constant(Constant::float(ty, 0.0));
    c.store(fzero, pd);
    let next = c.binary(BinOp::Add, j, one);
    let more = c.icmp(IntPred::Ult, next, count);
    c.cond_br(more, body, exit);
    c.switch_to(exit);
    c.ret(None);
    let phi = f.def_inst(j).expect("phi inst");
    if let InstKind::Phi { incoming } = &mut f.insts[phi].kind {
        incoming.push((body, next));
    }
    f
}

/// `realloc` moves a block's contents, so its shadow moves too; but the old shadow must
/// outlive the primal (the adjoint of the accesses made before the `realloc` adds into it),
/// so the new shadow is fresh zeroed memory holding a copy of the old one, and the old
/// shadow is freed where it was allocated. The old block's size is not known at the call,
/// so `malloc_usable_size` (glibc, musl) bounds the copy: zyg's shadows come from `calloc`,
/// so the bytes past the old size that it may add are zero.
pub fn is_realloc(kind: &InstKind) -> bool {
    matches!(kind, InstKind::Call { callee: Callee::Direct(name), args, .. } if &**name == "realloc" && args.len() == 2)
}

/// `__<ns>_shadow_realloc(old shadow, bytes) -> new shadow`: `calloc`, then the old
/// contents (up to `bytes`) copied in.
pub fn shadow_realloc_name(namespace: &str) -> String {
    format!("__{namespace}_shadow_realloc")
}

/// `__<ns>_realloc_adjoint_<ty>(old shadow, new shadow, bytes)`: the copy's adjoint (the
/// new shadow's contents added back into the old), then the new shadow freed.
pub fn realloc_adjoint_name(namespace: &str, ty: FloatTy) -> String {
    format!("__{namespace}_realloc_adjoint_{}", ty.name())
}

pub fn shadow_realloc_signature() -> Signature {
    Signature::new(vec![Type::PTR, Type::I64], Type::PTR)
}

pub fn realloc_adjoint_signature() -> Signature {
    Signature::new(vec![Type::PTR, Type::PTR, Type::I64], Type::Void)
}

/// The bytes a `realloc` to `bytes` keeps of `old`: `min(malloc_usable_size(old), bytes)`
/// (`malloc_usable_size(NULL)` is 0).
fn kept_bytes(c: &mut Cursor, old: Value, bytes: Value) -> Value {
    let usable = c
        .call("malloc_usable_size", Signature::new(vec![Type::PTR], Type::I64), vec![old])
        .expect("malloc_usable_size returns");
    let smaller = c.icmp(IntPred::Ult, usable, bytes);
    c.select(smaller, usable, bytes)
}

fn helper(name: String, sig: Signature) -> Function {
    let mut f = Function::new(name, sig);
    f.linkage = Linkage::Internal;
    f.attributes = vec!["nounwind".into()];
    f.create_block(Some("entry".into()));
    f
}

pub fn shadow_realloc(namespace: &str) -> Function {
    let mut f = helper(shadow_realloc_name(namespace), shadow_realloc_signature());
    let (old, bytes) = (f.params[0], f.params[1]);
    let entry = f.entry().expect("entry");
    let mut c = Cursor::at_end(&mut f, entry);
    let one = c.i64(1);
    let calloc = Signature::new(vec![Type::I64, Type::I64], Type::PTR);
    let new = c.call("calloc", calloc, vec![one, bytes]).expect("calloc returns");
    let kept = kept_bytes(&mut c, old, bytes);
    let volatile = c.constant(Constant::bool(false));
    let memcpy = Signature::new(vec![Type::PTR, Type::PTR, Type::I64, Type::I1], Type::Void);
    c.call("llvm.memmove.p0.p0.i64", memcpy, vec![new, old, kept, volatile]);
    c.ret(Some(new));
    f
}

/// Needs `copy_adjoint(namespace, ty)` in the same module.
pub fn realloc_adjoint(namespace: &str, ty: FloatTy) -> Function {
    let mut f = helper(realloc_adjoint_name(namespace, ty), realloc_adjoint_signature());
    let (old, new, bytes) = (f.params[0], f.params[1], f.params[2]);
    let entry = f.entry().expect("entry");
    let mut c = Cursor::at_end(&mut f, entry);
    let kept = kept_bytes(&mut c, old, bytes);
    c.call(&copy_adjoint_name(namespace, ty), copy_adjoint_signature(), vec![new, old, kept]);
    c.call("free", Signature::new(vec![Type::PTR], Type::Void), vec![new]);
    c.ret(None);
    f
}
